#!/bin/sh
# Install kowalski from a release tarball (`npm pack`'s kowalski-<version>.tgz) after
# checking its SHA-256, with nothing but Node.js (20.19 or newer) and npm:
#
#   sh install.sh [--prefix DIR] TARBALL SHA256
#
# TARBALL is a file or an http(s) URL. SHA256 is the tarball's sum (64 hex digits), or a
# file or http(s) URL of a `.sha256` file whose first word is the sum (sha256sum's format).
# The sum is computed with Node's crypto; when it differs, nothing is installed (exit 1).
# Then `npm install -g [--prefix DIR] TARBALL` installs the `kowalski` command: into
# DIR/bin with --prefix, else into npm's global prefix. A URL is downloaded once, and the
# file that was checked is the one installed.
#
# Exit codes: 0 installed; 1 not installed (the message says why, with its code from
# docs/errors.md); 2 bad usage.
set -u

me=install.sh

usage() {
  cat <<'EOF'
usage: install.sh [--prefix DIR] TARBALL SHA256

  TARBALL   the release tarball (kowalski-<version>.tgz): a file or an http(s) URL
  SHA256    its SHA-256: 64 hex digits, or a file or http(s) URL of a .sha256 file
            (the first word is the sum)
  --prefix  install under DIR (the command is DIR/bin/kowalski) instead of npm's
            global prefix

Needs Node.js 20.19 or newer and npm. Installs nothing unless the sum matches.
EOF
}

# fail CODE MESSAGE: not installed (exit 1).
fail() {
  printf '%s: %s [%s]\n' "$me" "$2" "$1" >&2
  exit 1
}

# bad_usage MESSAGE: exit 2 with the usage.
bad_usage() {
  printf '%s: %s [KW_ERR_USAGE]\n\n' "$me" "$1" >&2
  usage >&2
  exit 2
}

prefix=
tarball=
sum=
count=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix)
      [ $# -ge 2 ] && [ -n "$2" ] || bad_usage '--prefix needs a folder'
      prefix=$2
      shift 2
      ;;
    --prefix=*)
      prefix=${1#--prefix=}
      [ -n "$prefix" ] || bad_usage '--prefix needs a folder'
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    --)
      shift
      break
      ;;
    -?*) bad_usage "unknown option $1" ;;
    *)
      count=$((count + 1))
      case $count in
        1) tarball=$1 ;;
        2) sum=$1 ;;
        *) bad_usage "one TARBALL and one SHA256, not more (\"$1\")" ;;
      esac
      shift
      ;;
  esac
done
for arg in "$@"; do
  count=$((count + 1))
  case $count in
    1) tarball=$arg ;;
    2) sum=$arg ;;
    *) bad_usage "one TARBALL and one SHA256, not more (\"$arg\")" ;;
  esac
done
[ "$count" -ge 1 ] && [ -n "$tarball" ] || bad_usage 'TARBALL is missing'
[ "$count" -ge 2 ] && [ -n "$sum" ] || bad_usage 'SHA256 is missing (the sum, or a .sha256 file or URL)'

# What this needs: Node.js 20.19 or newer (package.json's engines) and npm.
command -v node >/dev/null 2>&1 ||
  fail KW_ERR_INSTALL_REQUIRES 'node was not found on PATH: install Node.js 20.19 or newer (https://nodejs.org), then run this again'
node -e '
const [major, minor] = process.versions.node.split(".").map(Number);
process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1);
' 2>/dev/null ||
  fail KW_ERR_INSTALL_REQUIRES "kowalski needs Node.js 20.19 or newer; this node ($(command -v node)) is $(node --version 2>/dev/null || echo 'one that does not run'): install a newer one (https://nodejs.org), then run this again"
command -v npm >/dev/null 2>&1 ||
  fail KW_ERR_INSTALL_REQUIRES 'npm was not found on PATH (it comes with Node.js; some Linux packages ship it apart, e.g. the "npm" package): install it, then run this again'
npm_version=$(npm --version 2>/dev/null) ||
  fail KW_ERR_INSTALL_REQUIRES "npm ($(command -v npm)) does not run: \`npm --version\` failed; repair or reinstall Node.js and npm, then run this again"

if [ -n "$prefix" ]; then
  case $prefix in
    /*) ;;
    *) prefix=$(pwd)/$prefix ;;
  esac
fi

work=$(node -e 'process.stdout.write(require("fs").mkdtempSync(require("path").join(require("os").tmpdir(), "kowalski-install-")))') ||
  fail KW_ERR_INSTALL_SOURCE 'cannot make a temporary folder (is the temp folder writable? set TMPDIR to another)'
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Fetch the tarball (a URL) into $work, read the expected sum, hash the file with Node's
# crypto. Prints the file that was checked; a mismatch or an unreadable source exits 1.
checked=$(node -e '
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const [tarball, sumArg, work] = process.argv.slice(1);
const URL_RE = /^https?:\/\//i;
const HEX = /^[0-9a-f]{64}$/i;
function fail(code, message) {
  process.stderr.write(`install.sh: ${message} [${code}]\n`);
  process.exit(1);
}
async function download(url, what) {
  let res;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(300_000) });
  } catch (err) {
    fail("KW_ERR_INSTALL_SOURCE", `cannot download ${what} ${url}: ${err.cause?.message ?? err.message}`);
  }
  if (!res.ok) fail("KW_ERR_INSTALL_SOURCE", `cannot download ${what} ${url}: HTTP ${res.status} ${res.statusText}`);
  return Buffer.from(await res.arrayBuffer());
}
function readLocal(file, what) {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) fail("KW_ERR_INSTALL_SOURCE", `${what} ${file} is not a file`);
    return path.resolve(file);
  } catch (err) {
    fail("KW_ERR_INSTALL_SOURCE", `cannot read ${what} ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  }
}
async function expectedSum() {
  if (HEX.test(sumArg)) return sumArg.toLowerCase();
  let text;
  if (URL_RE.test(sumArg)) text = (await download(sumArg, "the sum file")).toString("utf8");
  else {
    if (!fs.existsSync(sumArg)) fail("KW_ERR_INSTALL_SOURCE", `SHA256 "${sumArg}" is not 64 hex digits, nor a .sha256 file or an http(s) URL of one`);
    text = fs.readFileSync(readLocal(sumArg, "the sum file"), "utf8");
  }
  const first = text.trim().split(/\s+/)[0] ?? "";
  if (!HEX.test(first)) fail("KW_ERR_INSTALL_SOURCE", `the sum file ${sumArg} does not start with a SHA-256 (64 hex digits)${first === "" ? ": it is empty" : `: it starts with "${first.slice(0, 80)}"`}`);
  return first.toLowerCase();
}
async function main() {
  const expected = await expectedSum();
  let file;
  if (URL_RE.test(tarball)) {
    const name = path.basename(new URL(tarball).pathname) || "kowalski.tgz";
    file = path.join(work, /\.tgz$/.test(name) ? name : `${name}.tgz`);
    fs.writeFileSync(file, await download(tarball, "the tarball"));
  } else file = readLocal(tarball, "the tarball");
  const hash = crypto.createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk);
  const actual = hash.digest("hex");
  if (actual !== expected) fail("KW_ERR_INSTALL_CHECKSUM", `the SHA-256 of ${tarball} is ${actual}, not the expected ${expected}: the file is damaged or not the release you meant; nothing was installed`);
  process.stdout.write(file);
}
main().catch((err) => fail("KW_ERR_INSTALL_SOURCE", err.message));
' "$tarball" "$sum" "$work") || exit 1

printf '%s: %s: SHA-256 matches\n' "$me" "$tarball" >&2
# The install scripts of the dependencies: better-sqlite3 builds its native module;
# protobufjs's and @google/genai's only check versions or do nothing. npm 11.16 and later
# name every install script no allow-scripts setting covers, and npm 12 runs none of them
# unless allowed (better-sqlite3 would then be installed without its module), so they are
# allowed here by name. npm still names kowalski's own `prepare`, which builds a checkout and
# never runs from a tarball. An older npm knows no such setting ("undefined").
allow=
[ "$(npm config get allow-scripts 2>/dev/null)" = undefined ] || allow=--allow-scripts=better-sqlite3,protobufjs,@google/genai
if [ -n "$prefix" ]; then
  printf '%s: npm install -g %s--prefix %s %s (npm %s)\n' "$me" "${allow:+$allow }" "$prefix" "$checked" "$npm_version" >&2
  npm install -g $allow --prefix "$prefix" "$checked" >&2 ||
    fail KW_ERR_INSTALL_NPM "npm install -g --prefix $prefix failed (its output above says why)"
  bindir=$prefix/bin
else
  printf '%s: npm install -g %s%s (npm %s)\n' "$me" "${allow:+$allow }" "$checked" "$npm_version" >&2
  npm install -g $allow "$checked" >&2 ||
    fail KW_ERR_INSTALL_NPM 'npm install -g failed (its output above says why; a global prefix the user may not write to wants --prefix DIR, e.g. --prefix ~/.local)'
  bindir=$(npm prefix -g)/bin
fi

command=$bindir/kowalski
[ -x "$command" ] ||
  fail KW_ERR_INSTALL_NPM "npm reported success but there is no $command (look at npm's output above)"
version=$("$command" --version 2>&1) ||
  fail KW_ERR_INSTALL_NPM "$command was installed but does not run: $version"

printf '\nkowalski %s is installed: %s\n' "$version" "$command"
case ":${PATH}:" in
  *":$bindir:"*) next='kowalski serve' ;;
  *)
    printf '%s is not on your PATH: add it (export PATH="%s:$PATH"), or run %s\n' "$bindir" "$bindir" "$command"
    next="$command serve"
    ;;
esac
printf 'next: %s   (starts the server and opens the app; `kowalski --help` lists the commands)\n' "$next"
