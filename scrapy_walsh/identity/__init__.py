"""Who we are on the wire: Web Bot Auth keys and signatures, the agent card and the bot's page."""
