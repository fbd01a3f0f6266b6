"""R7's dedup key, a field or a callable (``WALSH_DEDUP_KEY``)."""

import pytest

from scrapy_walsh.config import dedup_key
from scrapy_walsh.pipelines.dedup import _key_function


def key_of(item):
    return f"{item['shop']}/{item['sku']}" if "sku" in item else None


def test_the_default_key_is_the_items_canonical_url():
    key = _key_function("url")
    assert key({"url": "https://a.example/p/#top"}) == key({"url": "https://a.example/p"})
    assert key({"name": "no url"}) is None, "no key: not deduplicated"


def test_a_field_key_tells_items_of_one_page_apart():
    key = _key_function("sku")
    page = "https://a.example/page-1.html"
    assert key({"url": page, "sku": "a"}) != key({"url": page, "sku": "b"})
    assert key({"url": page, "sku": 7}) == "7"


def test_a_callable_key():
    key = _key_function(f"{__name__}.key_of")
    assert key({"shop": "s", "sku": "a"}) == "s/a"
    assert key({"shop": "s"}) is None


@pytest.mark.parametrize("bad", ["", "two words", 3, None])
def test_an_unusable_key_setting_is_refused_in_words(bad):
    with pytest.raises(ValueError, match="neither an item field name nor the import path of a callable"):
        dedup_key(bad)


def test_a_callable_that_does_not_import_is_refused_at_start():
    with pytest.raises(ValueError, match="can't be imported"):
        dedup_key("no_such_module.key")
    assert dedup_key(f"{__name__}.key_of") == f"{__name__}.key_of"
