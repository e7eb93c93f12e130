"""Components: reads, details and analyses, writes, slots, libraries, documentation pages."""
