"""The request journal: a signed, append-only, hash-chained record of every request
the bot sent and every request it refused, per process, rotated by day.

- :mod:`.chain` is the pure part (the entry format, the chain, signing the head, verifying a
  file or a directory); no Scrapy, no Twisted.
- :mod:`.writer` appends to the day's file (no Scrapy): batched fsync, day rotation, retention.
- :mod:`.adapter` is what the checkpoint calls (one call site for sends; refusals arrive through
  :data:`scrapy_walsh.exceptions.denial_recorded`, the signal of the one place that counts them).
- :mod:`.reading` reads a journal back for ``scrapy walsh journal`` (show, match, report).
"""
