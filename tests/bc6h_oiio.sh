#!/usr/bin/env bash
# Runs bc6h_oiio.py on the folder bake_bc6h_files wrote (ctest: bc6h_oiio_read) with Debian's
# python3, which has python3-openimageio and python3-numpy (scripts/setup installs them). Without
# them: a failure in CI (CI set), else a skip (exit 77, reported as skipped) saying what is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import OpenImageIO, numpy' >/dev/null 2>&1; then
    python=$p
    break
  fi
done
if [ -z "$python" ]; then
  if [ -n "${CI:-}" ]; then
    echo "bc6h_oiio: no python3 with OpenImageIO and numpy (run scripts/setup: python3-openimageio python3-numpy)" >&2
    exit 1
  fi
  echo "bc6h_oiio SKIPPED: no python3 with OpenImageIO and numpy; run scripts/setup (python3-openimageio python3-numpy)"
  exit 77
fi
exec "$python" "$here/bc6h_oiio.py" "$1"
