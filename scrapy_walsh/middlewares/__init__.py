"""Scrapy downloader and spider middlewares: thin adapters over the pure policy core."""
