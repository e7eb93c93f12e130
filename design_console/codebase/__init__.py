"""Design systems read out of application code, with no design tool: which files a scan covers (:mod:`.walk`),
what a codebase is built with and which components it uses how often (:mod:`.analyze`, :mod:`.source`), the values
its stylesheets and Tailwind configs define (:mod:`.styles`, :mod:`.tailwind_config`), and what one component takes
(:mod:`.component`).

Pure of the tool layer: callers hand in folders and get plain data back (file paths relative to the scanned
target, 1-based lines). Turning mined values into tokens is the tools' part, with the token engine.
"""
