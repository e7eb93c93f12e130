"""Code from a design's node data: an XML outline, HTML, React with Tailwind, Vue."""
