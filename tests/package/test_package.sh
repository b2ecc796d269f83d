#!/usr/bin/env bash
# The packages, installed as a user would (issue 36, part 1). Run by ctest as `package` in a
# build without the CUDA backend (scripts/test's second pass; scripts/package builds its .deb
# the same way). Usage: test_package.sh BUILD_DIR WORK_DIR
#
#  1. cpack writes the .deb and the .tar.gz from BUILD_DIR (cmake/package.cmake);
#  2. the .deb declares its dependencies by Debian's names, every one of them a package this
#     machine has installed (the build used them), and holds the binaries, the lessons, the
#     man pages, the desktop entry and the icon;
#  3. dpkg installs it into a fresh root (--instdir, with its own database seeded from this
#     machine's, so dpkg itself checks the dependencies), and from there, in an empty folder:
#     `collsim run`, a lesson by name (read from the installed share folder, which it names),
#     `collsim-gui --screenshot` of a lesson by name under Xvfb; the man pages read; the
#     desktop entry validates and its Exec is installed; then dpkg removes it all;
#  4. the .tar.gz unpacks anywhere and runs a lesson by name from its own share folder.
# Everything it made is under WORK_DIR, removed at the end, even when a check fails.
set -euo pipefail

build="$(cd "$1" && pwd)"
work="$2"
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
trap 'rm -rf "$work"' EXIT

failures=0
ok() { printf 'ok   %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; failures=$((failures + 1)); }
check() {  # check "what" command...
  local what="$1"; shift
  if "$@" >"$work/last.log" 2>&1; then ok "$what"; else fail "$what"; sed 's/^/     /' "$work/last.log" | head -20; fi
}

# 1. The packages.
cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
deb="$(ls "$work"/out/collsim_*.deb)"
tgz="$(ls "$work"/out/collsim-*.tar.gz)"
ok "cpack wrote $(basename "$deb") ($(du -h "$deb" | cut -f1)) and $(basename "$tgz")"

# 2. What the .deb says and holds.
depends="$(dpkg-deb -f "$deb" Depends)"
printf '     Depends: %s\n' "$depends"
for wanted in libglfw3 libfmt9 libtomlplusplus3 libopenmpi3 openmpi-bin; do
  check "Depends names $wanted" grep -qE "(^|, )$wanted( |,|$)" <<<"$depends"
done
missing=""
for dep in $(tr ',' '\n' <<<"$depends" | sed -E 's/\(.*\)//; s/\|.*//; s/ //g'); do
  [[ "$(dpkg-query -W -f='${Status}' "$dep" 2>/dev/null)" == "install ok installed" ]] || missing+=" $dep"
done
check "every dependency is a Debian package installed here${missing:+ (not:$missing)}" test -z "$missing"
contents="$(dpkg-deb -c "$deb" | awk '{print $6}')"
for path in ./usr/bin/collsim ./usr/bin/collsim-gui ./usr/share/collsim/scenarios/lessons/01_ring_allreduce.toml \
            ./usr/share/collsim/scenarios/lectures/allreduce.lecture.toml ./usr/share/collsim/assets/fonts/DejaVuSans.ttf \
            ./usr/share/man/man1/collsim.1.gz ./usr/share/man/man1/collsim-run.1.gz ./usr/share/man/man1/collsim-gui.1.gz \
            ./usr/share/applications/collsim.desktop ./usr/share/icons/hicolor/scalable/apps/collsim.svg \
            ./usr/share/doc/collsim/README.md; do
  check "the .deb holds $path" grep -qx -- "$path" <<<"$contents"
done

# 3. Installed into a fresh root by dpkg, dependencies checked against this machine's packages.
root="$work/root" admin="$work/dpkg"
mkdir -p "$root" "$admin/info" "$admin/updates" "$admin/triggers"
cp /var/lib/dpkg/status "$admin/status"
touch "$admin/available"
dpkg_here=(dpkg --admindir="$admin" --instdir="$root" --force-not-root --force-bad-path --log=/dev/null)
check "dpkg -i into a fresh root (its dependencies checked)" "${dpkg_here[@]}" -i "$deb"
mkdir -p "$work/empty"
cd "$work/empty"
run_out="$("$root/usr/bin/collsim" run -q 2>&1 || true)"
check "installed collsim run: verified ($run_out)" test "$run_out" = "verified"
"$root/usr/bin/collsim" run lessons/01_ring_allreduce -q >"$work/lesson.out" 2>"$work/lesson.err" || true
check "a lesson by name, verified: $(cat "$work/lesson.out")" grep -qx verified "$work/lesson.out"
check "read from the installed share folder, which it names" \
  grep -qF "lessons/01_ring_allreduce is $root/usr/share/collsim/scenarios/lessons/01_ring_allreduce.toml" "$work/lesson.err"
check "collsim explain a lecture's lesson by name" "$root/usr/bin/collsim" explain lessons/05_broadcast.toml
if xvfb-run -a -s "-screen 0 1280x800x24" "$root/usr/bin/collsim-gui" lessons/02_ring_vs_parameter_server \
     --screenshot "$work/shot.png" --size 1280x800 >"$work/gui.out" 2>&1; then
  size="$(stat -c %s "$work/shot.png")"
  check "installed collsim-gui --screenshot of a lesson by name ($size bytes)" test "$size" -gt 20000
  check "the app read the installed lesson" grep -qF "$root/usr/share/collsim/scenarios/lessons/02_ring_vs_parameter_server.toml" "$work/gui.out"
else
  fail "installed collsim-gui --screenshot"; sed 's/^/     /' "$work/gui.out"
fi
for page in collsim collsim-run collsim-bench collsim-gui; do
  zcat "$root/usr/share/man/man1/$page.1.gz" >"$work/$page.1"
  check "man page $page(1) has its NAME and flags" bash -c "grep -q '^.SH NAME' '$work/$page.1' && grep -qF -- '\\-\\-help' '$work/$page.1'"
done
check "man collsim-run(1) lists --ranks" bash -c "zcat '$root/usr/share/man/man1/collsim-run.1.gz' | grep -q 'ranks'"
check "the desktop entry validates" desktop-file-validate "$root/usr/share/applications/collsim.desktop"
exec_name="$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$root/usr/share/applications/collsim.desktop")"
check "its Exec ($exec_name) is installed" test -x "$root/usr/bin/$exec_name"
check "dpkg -r removes it" "${dpkg_here[@]}" -r collsim
check "nothing of it is left in the root" test ! -e "$root/usr/bin/collsim" -a ! -e "$root/usr/share/collsim"

# 4. The .tar.gz, unpacked anywhere.
mkdir -p "$work/tgz"
tar -xzf "$tgz" -C "$work/tgz"
tree="$(ls -d "$work"/tgz/collsim-*)"
"$tree/bin/collsim" run lessons/01_ring_allreduce -q >"$work/tgz.out" 2>"$work/tgz.err" || true
check "the .tar.gz runs a lesson by name from its own share folder" \
  bash -c "grep -qx verified '$work/tgz.out' && grep -qF '$tree/share/collsim/scenarios/lessons/01_ring_allreduce.toml' '$work/tgz.err'"

cd /
if ((failures > 0)); then
  printf '%d check(s) failed\n' "$failures"
  exit 1
fi
printf 'the packages install and run\n'
