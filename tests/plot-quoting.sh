#!/bin/sh
# plot-quoting.sh REMATSIM: `rematsim plot` must never let gnuplot run or
# interpret a name (issue 27, N1). Draws figures whose model titles and
# descriptions (a zip manifest's, then a hand-edited models.tsv's), series
# name (YAML) and output folder name hold backquotes, $(...), system(...),
# `!cmd` after a newline, @macros, quotes of both kinds, backslashes,
# enhanced-text markup, control characters and non-ASCII; every command in
# them would create a file. Checks that none was created, that the figures
# were drawn, and that each text appears as given in the SVG (which must
# parse as XML) and the PDF (with pdftotext), control characters shown as
# spaces. Exits 77 (skipped) without gnuplot or python3.
set -eu
rematsim=$1
case $rematsim in /*) ;; *) rematsim=$PWD/$rematsim ;; esac # (the test runs in its folder)
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
data=$(cd "${TEST_DATA_DIR:?}" && pwd)
plots=$(cd "${REMATSIM_PLOTS:?}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
M=ran # every payload's command would create ran-SOMETHING here, in $tmp

# The texts, as the figures should show them (one per line of texts.json),
# and the archive and experiment that carry them.
python3 - "$tmp" "$M" "$data" <<'EOF'
import json, sys, zipfile
tmp, M, data = sys.argv[1:4]
title = ("T `touch %s-t1` $(touch %s-t2) it's \"q\" back\\slash a_b^c{d}&e~f @x <b> é" % (M, M))
desc = ("D `touch {M}-d1` $(touch {M}-d2) system(\"touch {M}-d3\") system('touch {M}-d4') "
        "'; system('touch {M}-d5'); x = ' \"; system(\"touch {M}-d6\"); x = \" @M "
        "back\\slash \\\\n α ж € &amp;".format(M=M))
series = "S `touch {M}-s1` $(touch {M}-s2) system(\"touch {M}-s3\") it's \\ _x@y é".format(M=M)
exp = "hostile `touch {M}-x1` $(touch {M}-x2) 'q' \\ _@".format(M=M)
man = {"models": [
    {"name": "c8", "title": title, "desc": desc, "log": "logs/chain8.log", "has_start": True},
    {"name": "c12", "title": "plain", "desc": "plain", "log": "logs/chain12.log", "has_start": True}]}
with zipfile.ZipFile(tmp + "/hostile.zip", "w") as z:
    z.writestr("logs/manifest.json", json.dumps(man, ensure_ascii=False))
    for n in ("chain8.log", "chain12.log"):
        z.write(data + "/" + n, "logs/" + n)
with open(tmp + "/hostile.yaml", "w", encoding="utf-8") as f:
    # (JSON strings are YAML double-quoted strings)
    f.write("experiment: %s\nmanifest: %s\n" % (json.dumps(exp), json.dumps(tmp + "/hostile.zip")))
    f.write("series:\n  - {name: %s, heuristic: DTR}\n  - {name: LRU, heuristic: LRU}\n"
            % json.dumps(series, ensure_ascii=False))
    f.write("ratios: [0.4, 0.7, 1.0]\n")
json.dump({"title": title, "desc": desc, "series": series, "experiment": exp},
          open(tmp + "/texts.json", "w"), ensure_ascii=False)
EOF
"$rematsim" sweep -q "$tmp/hostile.yaml" --out "$tmp/o" || fail "the sweep of hostile names"

# A models.tsv edited by hand: control characters (carriage return,
# escape, vertical tab, form feed) and commands in the second model's
# description.
python3 - "$tmp" "$M" <<'EOF'
import json, sys
tmp, M = sys.argv[1:3]
edited = ("E\rcr `touch {M}-e1`\x1b[31m\x0bvt\x0c!touch {M}-e2 ; system \"touch {M}-e3\" "
          "'.system('touch {M}-e4').'".format(M=M))
p = tmp + "/o/models.tsv"
lines = open(p, encoding="utf-8", newline="").read().split("\n")
for i, l in enumerate(lines):
    f = l.split("\t")
    if f[0] == "c12":
        f[2] = edited
        lines[i] = "\t".join(f)
open(p, "w", encoding="utf-8", newline="").write("\n".join(lines))
t = json.load(open(tmp + "/texts.json"))
t["edited"] = "".join(" " if ord(c) < 32 else c for c in edited)
json.dump(t, open(tmp + "/texts.json", "w"), ensure_ascii=False)
EOF

# The folder's own name: a newline then commands (figure.gp names the
# folder in a comment), backquotes, and a trailing backslash.
dir="$tmp/o \`touch $M-k1\` \$(touch $M-k2)
!touch $M-k3
system \"touch $M-k4\" \\"
mv "$tmp/o" "$dir"

"$rematsim" plot --format png,pdf,svg --plots "$plots" "$dir" > "$tmp/list" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "rematsim plot of hostile names"; }
ran=$(ls "$tmp" | grep '^ran-' || true)
[ -z "$ran" ] || fail "gnuplot ran commands from names: $ran"
grep -q '\.svg$' "$tmp/list" || fail "no SVG drawn"
# gnuplot's complaints would say it parsed a name as a command
! grep -qi 'unexpected\|invalid\|undefined\|unrecognized' "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "gnuplot misparsed a name"; }
for f in "$dir"/plot-data/*/figure.gp; do
	# no control character but newlines and tabs
	! LC_ALL=C tr -d '\n\t' < "$f" | LC_ALL=C grep -q '[[:cntrl:]]' ||
		fail "a raw control character in $f"
done

# Each text as given in the SVG's text (lines of a wrapped description
# joined by spaces), and the SVG is XML.
exp=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["experiment"])' "$tmp/texts.json")
python3 - "$tmp" "$dir/$exp.svg" <<'EOF' || fail "the SVG does not show the names as given"
import json, sys, xml.etree.ElementTree as ET
tmp, svg = sys.argv[1:3]
t = json.load(open(tmp + "/texts.json"))
root = ET.parse(svg).getroot()
texts = ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]
joined = " ".join(texts)
bad = 0
for key in ("title", "desc", "series", "edited", "experiment"):
    want = " ".join(t[key].split())
    got = " ".join(joined.split())
    if want not in got:
        print("not in the SVG (%s): %s" % (key, want))
        bad = 1
if bad:
    print("SVG text:", texts)
sys.exit(bad)
EOF
# The PDF's text too (cairo draws enhanced text by rules of its own: a
# line without one of {}^_@&~ is drawn as it is, escapes and all), word
# by word: the title runs past the page's edge.
if command -v pdftotext >/dev/null 2>&1; then
	pdftotext "$dir/$exp.pdf" "$tmp/pdf.txt" || fail "pdftotext"
	python3 - "$tmp" <<'EOF' || fail "the PDF does not show the names as given"
import json, sys
tmp = sys.argv[1]
t = json.load(open(tmp + "/texts.json"))
words = set(open(tmp + "/pdf.txt", encoding="utf-8").read().split())
bad = 0
for key in ("desc", "series", "edited"):
    for w in t[key].split():
        if w not in words:
            print("not in the PDF (%s): %s" % (key, w))
            bad = 1
sys.exit(bad)
EOF
else
	echo "no pdftotext (poppler-utils): the PDF's text not checked"
fi

# The asymptotic study's figure (its own writer): a generated model, a
# series and an experiment named with commands.
python3 - "$tmp" "$M" <<'EOF'
import json, sys
tmp, M = sys.argv[1:3]
exp = "asym `touch {M}-a1` $(touch {M}-a2) 'q'".format(M=M)
series = "A `touch {M}-a3` system(\"touch {M}-a4\") \\ _x@y & é".format(M=M)
with open(tmp + "/asym.yaml", "w", encoding="utf-8") as f:
    f.write("experiment: %s\nmodels:\n  - {gen: linear, n: [8, 16, 32]}\n" % json.dumps(exp))
    f.write("budgets: [\"2*sqrt(n)\"]\nseries:\n  - {name: %s, heuristic: DTR}\n"
            % json.dumps(series, ensure_ascii=False))
    f.write("overhead_limit: inf\n")
json.dump({"experiment": exp, "series": series}, open(tmp + "/asym.json", "w"), ensure_ascii=False)
EOF
"$rematsim" sweep -q "$tmp/asym.yaml" --out "$tmp/asym" || fail "the sweep of the asymptotics names"
"$rematsim" plot --format svg --plots "$plots" "$tmp/asym" > "$tmp/list" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; fail "rematsim plot of the asymptotics names"; }
ran=$(ls "$tmp" | grep '^ran-' || true)
[ -z "$ran" ] || fail "gnuplot ran commands from the asymptotics names: $ran"
python3 - "$tmp" <<'EOF' || fail "the asymptotics SVG does not show the names as given"
import glob, json, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
t = json.load(open(tmp + "/asym.json"))
svg = tmp + "/asym/" + t["experiment"] + ".svg"
texts = ["".join(e.itertext()) for e in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}text")]
got = " ".join(" ".join(texts).split())
bad = 0
for want in (t["experiment"] + ": extra compute", t["series"]):
    if want not in got:
        print("not in the SVG:", want)
        bad = 1
if bad:
    print("SVG text:", texts)
sys.exit(bad)
EOF
echo "ok: no command ran; titles, descriptions and series shown as given"
