"""What a crawl leaves behind: items delivered, the summary, progress, faults and the exit status."""
