#!/usr/bin/env bash
# How much of the release binary is kept only because some code in it
# calls methods by name through reflection (reflect.Value.MethodByName
# with a name not known when linking: text/template does). When the linker
# sees such a call reachable, it must keep every exported method of every
# type that can reach an interface, used or not.
#
# This links ./cmd/hearth twice: once as `make release` does, and once
# with a copy of the Go linker whose dead-code pass ignores those calls.
# The second binary is a size bound only; it is not meant to run.
# Usage: scripts/binsize-reflect.sh   (needs ~300 MB in $TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
goroot=$(go env GOROOT)
cp -a "$goroot" "$work/go"
dead="$work/go/src/cmd/link/internal/ld/deadcode.go"
# The one line that turns on "keep all exported methods".
grep -q 'd.reflectSeen = d.reflectSeen || d.ldr.IsReflectMethod(symIdx)' "$dead" ||
	{ echo "this Go's linker differs from the one this script knows; nothing measured" >&2; exit 1; }
sed -i 's/d.reflectSeen = d.reflectSeen || d.ldr.IsReflectMethod(symIdx)/_ = d.ldr.IsReflectMethod(symIdx)/' "$dead"
(cd "$work/go/src" && GOROOT="$work/go" "$work/go/bin/go" build -o "$work/link" cmd/link)
cat >"$work/toolexec" <<SH
#!/usr/bin/env bash
case "\$1" in */link) t="\$1"; shift; exec -a "\$t" "$work/link" "\$@";; esac
exec "\$@"
SH
chmod +x "$work/toolexec"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
go build -trimpath -ldflags='-s -w' -o "$work/release" ./cmd/hearth
go build -trimpath -ldflags='-s -w' -toolexec="$work/toolexec" -o "$work/bound" ./cmd/hearth
r=$(stat -c %s "$work/release")
b=$(stat -c %s "$work/bound")
printf 'release build:                    %d bytes\n' "$r"
printf 'without reflection by name:       %d bytes (a bound; not a working binary)\n' "$b"
awk -v r="$r" -v b="$b" 'BEGIN {printf "kept for reflection by name:      %.1f MB\n", (r - b) / 1e6}'
echo "reachable functions that call methods by name (all must go for the saving):"
go build -trimpath -ldflags='-dumpdep' -o /dev/null ./cmd/hearth 2>&1 |
	awk '/<ReflectMethod> ->/ {print "  " $1}' | sort -u
