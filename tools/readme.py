#!/usr/bin/python3
"""readme.py [--write] README [LIST]: the README's generated parts, checked
(or, with --write, rewritten in place):

  between <!-- contents --> and <!-- /contents -->: the table of contents,
  every ## and ### heading with its GitHub anchor;
  between <!-- catalogue --> and <!-- /catalogue -->: the test catalogue,
  one line per test, grouped, from LIST (what the monitor's 'list' prints:
  build/host/iommon, `list`), so no test goes undescribed;
  and that its first screen (30 lines) says how to get from a clone to a
  verdict (`make run`), where the results are (`build/run/`) and `make test`.

Prints "PASS readme.NAME: ..." or "FAIL readme.NAME: ..." a line, as
tools/test.sh counts them; exits 1 on a failure."""

import re
import sys


def anchor(title, seen):
    """GitHub's anchor for a heading: lower case, punctuation dropped but
    hyphens, spaces as hyphens; a repeat gets -1, -2, ..."""
    a = re.sub(r"[^\w\- ]", "", title.replace("`", "").strip().lower()).replace(" ", "-")
    n = seen.get(a, 0)
    seen[a] = n + 1
    return a if n == 0 else "%s-%d" % (a, n)


def contents(text):
    out, seen, fence = [], {}, False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(##|###) (.+)$", line)
        if m and m.group(2).strip() != "Contents":
            title = m.group(2).strip()
            out.append("%s- [%s](#%s)" % ("  " if m.group(1) == "###" else "", title, anchor(title, seen)))
    return out


def catalogue(listing):
    """The 'list' output as Markdown: a line per group, then its tests (a
    summary the console wrapped, its further lines indented, joined)."""
    out = []
    wrapped = False  # may the next indented line continue the last entry?
    for line in listing.splitlines():
        g = re.match(r"^  ([a-z0-9_]+): (.+)$", line)
        t = re.match(r"^   ([* ]) ([a-z0-9_]+\.[a-z0-9_]+) +(.+)$", line)
        more = re.match(r"^ {5,}(\S.*)$", line)
        if g:
            out += ["", "**`%s`** — %s" % (g.group(1), g.group(2)), ""]
            wrapped = True
        elif t:
            out.append("- `%s`%s — %s" % (t.group(2), " (default plan)" if t.group(1) == "*" else "", t.group(3)))
            wrapped = True
        elif more and wrapped and out:
            at = -2 if out[-1] == "" else -1  # a group's line is followed by a blank one
            out[at] += " " + more.group(1)
        else:
            wrapped = False
    return out[1:] if out and out[0] == "" else out


def block(text, name, want):
    """(new text, was it as wanted): the block between the markers."""
    begin, end = "<!-- %s -->" % name, "<!-- /%s -->" % name
    if begin not in text or end not in text:
        return text, None
    head, rest = text.split(begin, 1)
    old, tail = rest.split(end, 1)
    new = "\n" + "\n".join(want) + "\n"
    return head + begin + new + end + tail, old == new


def main(argv):
    write = "--write" in argv
    args = [a for a in argv if a != "--write"]
    if not args or len(args) > 2:
        print("usage: readme.py [--write] README [LIST]", file=sys.stderr)
        return 2
    path = args[0]
    try:
        text = open(path).read()
    except OSError as e:
        print("readme.py: %s: %s" % (path, e.strerror), file=sys.stderr)
        return 2
    status = 0
    # the first screen gets a person from a clone to a verdict and says where
    # the results are
    first = "\n".join(text.splitlines()[:30])
    missing = [w for w in ("make run", "build/run/", "make test") if w not in first]
    if missing:
        print("FAIL readme.first-screen: the README's first 30 lines do not say %s" % ", ".join(missing))
        status = 1
    else:
        print("PASS readme.first-screen: the first 30 lines say make run, where it leaves the results, make test")
    checks = [("contents", contents(text), "%d headings")]
    if len(args) > 1:
        try:
            listing = open(args[1]).read()
        except OSError as e:
            print("readme.py: %s: %s" % (args[1], e.strerror), file=sys.stderr)
            return 2
        cat = catalogue(listing)
        checks.append(("catalogue", cat, "%d tests" % sum(1 for line in cat if line.startswith("- "))))
    for name, want, what in checks:
        text, same = block(text, name, want)
        if same is None:
            print("FAIL readme.%s: README has no <!-- %s --> block" % (name, name))
            status = 1
        elif same or write:
            print("PASS readme.%s: %s, as %s" % (name, what % len(want) if "%d" in what else what,
                                                 "written" if write and not same else "generated"))
        else:
            print("FAIL readme.%s: the README's block is not what tools/readme.py generates "
                  "(tools/readme.py --write README.md LIST)" % name)
            status = 1
    if write:
        open(path, "w").write(text)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
