"""Headless Chromium (Debian's chromium) opens the bundled example's HTML page:
it loads without console errors and shows both timelines with their bars,
the exposed-collective table and the memory chart."""

import os
import re
import subprocess
import sys
import tempfile

import osched_testing as ot

binary, graph = ot.binary(sys.argv[1]), sys.argv[2]
with tempfile.TemporaryDirectory() as d:
    page = os.path.join(d, "page.html")
    ot.run(binary, "schedule", graph, "-o", os.path.join(d, "out.json"), "--html", page, "-q",
           check=True)
    base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={d}/profile", "--enable-logging=stderr", "--v=0"]
    r = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"chromium exited {r.returncode}: {r.stderr[-2000:]}")
    dom = r.stdout
    errors = [l for l in r.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if errors:
        sys.exit("console errors: " + "\n".join(errors))
    for part in ('id="timeline-original"', 'id="timeline-scheduled"', 'id="exposed"', 'id="memory"'):
        if part not in dom:
            sys.exit(f"rendered page lacks {part}")
    for tl in ("timeline-original", "timeline-scheduled"):
        svg = dom[dom.index(f'id="{tl}"'):]
        svg = svg[: svg.index("</svg>")]
        for color, what in (("4c78a8", "compute"), ("f58518", "collective")):
            if not re.search(rf'<rect [^>]*fill="#{color}"', svg):
                sys.exit(f"{tl}: no {what} bars drawn")
    shot = os.path.join(d, "page.png")
    r = subprocess.run(base + ["--screenshot=" + shot, "--window-size=1300,1400", "file://" + page],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        sys.exit("screenshot failed: " + r.stderr[-2000:])
print("chromium: page loads, both timelines drawn")
