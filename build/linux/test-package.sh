#!/bin/sh
# test-package.sh DEB — checks the Debian package (`make test-package`):
# its contents (dpkg-deb -c), its dependencies, that its .desktop entry
# passes desktop-file-validate; then `make install-user` into a scratch
# prefix and a launch through the desktop entry (gtk-launch) under Xvfb,
# with a screenshot of the window in docs/screenshots/desktop-entry-launch.png
# when SHOT=1. Needs: dpkg-deb, desktop-file-validate (desktop-file-utils),
# gtk-launch (libgtk-3-bin), xvfb-run, xdotool, imagemagick.
set -eu
deb=$1
fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
ok() { echo "test-package: ok: $*"; }

list=$(dpkg-deb -c "$deb")
for f in ./usr/bin/jean-claude ./usr/share/applications/jean-claude.desktop; do
  echo "$list" | grep -q " $f\$" || fail "$f not in the package"
done
for s in 16 24 32 48 64 128 256 512; do
  echo "$list" | grep -q " ./usr/share/icons/hicolor/${s}x${s}/apps/jean-claude.png\$" || fail "no ${s}x${s} icon"
done
echo "$list" | grep ' ./usr/bin/jean-claude$' | grep -q '^-rwxr-xr-x' || fail "the binary is not executable"
ok "dpkg-deb -c: binary, desktop entry, hicolor icons 16..512"

deps=$(dpkg-deb -f "$deb" Depends)
for d in libwebkit2gtk-4.1-0 libgtk-3-0; do
  echo "$deps" | grep -q "$d" || fail "Depends lacks $d: $deps"
done
ok "Depends: $deps"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/root"
desktop-file-validate "$tmp/root/usr/share/applications/jean-claude.desktop" || fail "desktop-file-validate"
ok "desktop-file-validate"
"$tmp/root/usr/bin/jean-claude" --version >/dev/null || fail "the packaged binary does not run"
ok "packaged binary: $("$tmp/root/usr/bin/jean-claude" --version)"

# A user install (no root) into a scratch prefix, then a launch through
# the desktop entry.
prefix="$tmp/home/.local"
make -s install-user-files PREFIX="$prefix" >/dev/null
for f in bin/jean-claude share/applications/jean-claude.desktop share/icons/hicolor/256x256/apps/jean-claude.png; do
  [ -e "$prefix/$f" ] || fail "install-user: no $prefix/$f"
done
desktop-file-validate "$prefix/share/applications/jean-claude.desktop" || fail "installed desktop entry"
grep -q "^Exec=$prefix/bin/jean-claude\$" "$prefix/share/applications/jean-claude.desktop" || fail "installed Exec is not the absolute path"
ok "install-user: ~/.local/bin, applications, icons"

if ! command -v gtk-launch >/dev/null || ! command -v xvfb-run >/dev/null; then
  echo "test-package: SKIP launch: gtk-launch (libgtk-3-bin) or xvfb-run missing"; exit 0
fi
mkdir -p "$tmp/home/.config"
export HOME="$tmp/home" XDG_DATA_HOME="$prefix/share" XDG_CONFIG_HOME="$tmp/home/.config" JEAN_CLAUDE_DB="$tmp/profile/jean-claude.db"
shot=${SHOT_PATH:-docs/screenshots/desktop-entry-launch.png}
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- sh -c '
  gtk-launch jean-claude || exit 10
  i=0; while [ $i -lt 120 ]; do
    w=$(xdotool search --onlyvisible --name "^Jean-Claude\$" 2>/dev/null | head -1)
    [ -n "$w" ] && break; i=$((i+1)); sleep 0.5
  done
  [ -n "$w" ] || exit 11
  xdotool windowmove "$w" 0 0 windowsize "$w" 1280 800
  sleep 10 # WebKit paints slowly with software rendering under Xvfb
  if [ "${SHOT:-0}" = 1 ]; then import -window root "'"$shot"'"; fi
  pid=$(head -1 "$JEAN_CLAUDE_DB.lock")
  kill "$pid"; i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.25; i=$((i+1)); done
  kill -9 "$pid" 2>/dev/null || true
' || fail "launch through the desktop entry (gtk-launch) under Xvfb: status $?"
[ -f "$JEAN_CLAUDE_DB" ] || fail "the launched app made no database"
ok "gtk-launch jean-claude: window up under Xvfb, profile created"
echo "test-package: all checks passed"
