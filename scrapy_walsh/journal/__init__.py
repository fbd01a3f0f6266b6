"""The request journal: a signed, append-only, hash-chained record of every request
the bot sent and every request it refused, per process, rotated by day.

:mod:`.chain` is the pure part (format, chain, signing, verifying); :mod:`.writer` appends to
the day's file; :mod:`.adapter` is what the checkpoint calls (refusals arrive through
:data:`scrapy_walsh.exceptions.denial_recorded`); :mod:`.reading` reads a journal back for
``scrapy walsh journal``. docs/journal.md says why.
"""
