"""The HTML report as a person sees it: rendered by Debian's Chromium,
headless, in a 1280-pixel window, from a real run's records. What is
measured in the page itself (a script added to a copy of it, since the
report carries none) is what a person would see: the verdict banner at
the top, what needs a look before the tests by group and the machine's
fields after them, no table or plot wider than the window, no plot label
cut at the plot's edge or reading the same as another row's. The check
runs again on copies broken on purpose (a page wider than the window, a
label cut), each of which it must refuse."""

import json
import os
import re
import shutil
import subprocess

WIDTH = 1280

# Measures the laid-out page; its verdict goes into the page, where
# --dump-dom shows it.
PROBE = """<script>
(function () {
  var out = {}, vw = document.documentElement.clientWidth;
  var b = document.getElementById("banner");
  out.banner = b ? {top: b.getBoundingClientRect().top, text: b.textContent.trim().slice(0, 60)} : null;
  out.page = document.documentElement.scrollWidth;
  out.viewport = vw;
  out.wide = [];
  var boxes = document.querySelectorAll("table, svg, pre, h2, h3, p, li");
  for (var i = 0; i < boxes.length; i++) {
    var r = boxes[i].getBoundingClientRect();
    if (r.right > vw + 0.5) out.wide.push(boxes[i].tagName + " " + Math.round(r.right) + " px: " +
                                          (boxes[i].textContent || "").trim().slice(0, 40));
  }
  out.cut = []; out.same = [];
  var svgs = document.querySelectorAll("svg");
  for (var s = 0; s < svgs.length; s++) {
    var seen = {}, sr = svgs[s].getBoundingClientRect();
    var labels = svgs[s].querySelectorAll("text[text-anchor='end']");
    for (var k = 0; k < labels.length; k++) {
      var lr = labels[k].getBoundingClientRect(), t = labels[k].textContent;
      if (lr.left < sr.left - 0.5 || lr.width === 0) out.cut.push(t);
      if (seen[t]) out.same.push(t);
      seen[t] = 1;
    }
  }
  var order = [];
  var heads = document.querySelectorAll("h2, summary");
  for (var h = 0; h < heads.length; h++) order.push(heads[h].textContent.trim().split(" ")[0]);
  out.order = order;
  var pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def measure(page, scratch, tag):
    """The probe's findings for `page` (a path), or a string saying why none."""
    copy = os.path.join(scratch, "browser-%s.html" % tag)
    text = open(page, encoding="utf-8").read().replace("</body>", PROBE + "</body>", 1)
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    profile = os.path.join(scratch, "chromium-profile")
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--user-data-dir=" + profile, "--window-size=%d,1000" % WIDTH, "--virtual-time-budget=5000",
           "--dump-dom", "file://" + os.path.abspath(copy)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        return "chromium did not finish in 90 s"
    m = re.search(r'<pre id="layout-check">(.*?)</pre>', p.stdout, re.S)
    if not m:
        return "chromium showed no measurement (exit %d: %s)" % (p.returncode, p.stderr.strip()[-200:])
    return json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&amp;", "&"))


def problems(m):
    """What a person would see wrong in the measured page."""
    if isinstance(m, str):
        return [m]
    out = []
    b = m.get("banner")
    if not b:
        out.append("no verdict banner")
    elif b["top"] > 150 or not re.match(r"(PASS|FAIL|INCONCLUSIVE|PLAN COULD NOT RUN) ", b["text"]):
        out.append("the banner is not first or has no verdict (%s at %d px)" % (b["text"], b["top"]))
    if m["page"] > WIDTH or m["wide"]:
        out.append("wider than the %d px window (%d px): %s" % (WIDTH, m["page"], "; ".join(m["wide"][:3])))
    if m["cut"]:
        out.append("plot labels cut: %s" % ", ".join(m["cut"][:3]))
    if m["same"]:
        out.append("plot labels that read the same in one plot: %s" % ", ".join(m["same"][:3]))
    order = m["order"]
    want = ["What", "Tests", "Machine"]  # needs a look, tests by group, the machine folded last
    at = [order.index(w) if w in order else -1 for w in want]
    if -1 in at or at != sorted(at) or order[-1] != "Machine":
        out.append("sections out of order: %s" % " > ".join(order))
    return out


def check(page, scratch, say):
    if not chromium():
        return say("FAIL", "browser", "no chromium (make deps installs Debian's)")
    m = measure(page, scratch, "page")
    bad = problems(m)
    if bad:
        return say("FAIL", "browser", "; ".join(bad))
    # broken on purpose: each must be refused
    text = open(page, encoding="utf-8").read()
    broken = {
        "wide": text.replace("max-width: 1240px;", "min-width: 1700px;", 1),
        "cut": re.sub(r'(<text x=")(\d+)(" y="[0-9.]+" text-anchor="end">)', r'\g<1>60\g<3>', text, count=1),
        "no-banner": text.replace('id="banner"', 'id="not-banner"', 1),
    }
    missed = []
    for tag, t in broken.items():
        p = os.path.join(scratch, "broken-%s.html" % tag)
        with open(p, "w", encoding="utf-8") as f:
            f.write(t)
        if t == text or not problems(measure(p, scratch, tag)):
            missed.append(tag)
    if missed:
        return say("FAIL", "browser", "the check passed pages broken on purpose: %s" % ", ".join(missed))
    say("PASS", "browser", "rendered by %s at %d px: banner '%s' first, what needs a look before the tests by "
        "group, the machine folded last, page %d px wide, no table or plot past the window, %d plots' labels "
        "whole and distinct; pages broken on purpose (wider, a label cut, no banner) refused" % (
            os.path.basename(chromium()), WIDTH, m["banner"]["text"][:30], m["page"], text.count("<svg")))
