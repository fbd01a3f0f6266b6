"""The markdown outline (R9): a CommonMark parser's tokens, never a regex over the text."""

from scrapy_walsh.policy.markdown import MAX_LINKS, MAX_TEXT, outline

DOC = """# Guide *one*

Intro with a [relative link](/setup), a [reference link][ref] and <https://auto.example/x>.

Setext heading
--------------

```
# not a heading
[not a link](http://code.example/)
```

Inline code `[nope](http://span.example/)` and an ![image](/logo.png).
[script](javascript:alert(1)) [mail](mailto:a@b.example) <a href="http://html.example/">raw html</a>

### Deep `code` heading

[ref]: https://ref.example/page "Title"
"""


def test_headings_title_and_links_come_from_the_parser():
    out = outline(DOC, "https://docs.example/guide/one")
    assert out.title == "Guide one"
    assert [(h.level, h.text) for h in out.headings] == [
        (1, "Guide one"),
        (2, "Setext heading"),
        (3, "Deep code heading"),
    ]
    assert [(link.text, link.url) for link in out.links] == [
        ("relative link", "https://docs.example/setup"),
        ("reference link", "https://ref.example/page"),
        ("https://auto.example/x", "https://auto.example/x"),
    ]


def test_no_title_without_h1_and_fields_are_plain_data():
    fields = outline("## Only a section\n\n[a](https://a.example/) [a again](https://a.example/)\n").as_fields()
    assert fields == {
        "title": None,
        "headings": [{"level": 2, "text": "Only a section"}],
        "links": [{"text": "a", "url": "https://a.example/"}],
    }


def test_bounded_output():
    long_heading = "# " + "x" * 5000 + "\n"
    many = "".join(f"[l{i}](https://l.example/{i}) " for i in range(MAX_LINKS + 50))
    out = outline(long_heading + "\n" + many + "\n[far](https://f.example/" + "y" * 3000 + ")\n")
    assert len(out.title) == MAX_TEXT
    assert len(out.links) == MAX_LINKS
    assert all(len(link.url) <= 2000 for link in out.links)
