"""R6 discovery: the site's own manifests as a link-following spider's targets, and R9's structured sources."""
