#!/usr/bin/env bash
# httpbin (from PyPI, served by gunicorn) for the interop tests, on a free 127.0.0.1 port.
#   httpbin.sh up DIR     installs httpbin, gunicorn, requests-cache (for the cache benchmark),
#                         http-ece and jwcrypto (the encryption tests' reference implementations),
#                         h2 (the HTTP/2 server of h2-goaway.py)
#                         into a virtual environment if missing (under
#                         ${SLUICE_VENV:-$HOME/.cache/sluice/py-venv}), starts gunicorn, writes the
#                         variables the tests read to DIR/httpbin.env
#   httpbin.sh venv       only installs, and prints the environment's python
#   httpbin.sh down DIR   stops it
set -euo pipefail
action=${1:?up|down|venv} dir=${2:-}
case "$action" in
down)
  if [ -f "$dir/httpbin.pid" ]; then kill "$(cat "$dir/httpbin.pid")" 2>/dev/null || true; fi
  exit 0 ;;
up|venv) ;;
*) echo "usage: $0 up|down DIR | venv" >&2; exit 2 ;;
esac

venv=${SLUICE_VENV:-$HOME/.cache/sluice/py-venv}
# http-ece and jwcrypto are the reference implementations the payload-encryption tests check
# Sluice against, both ways; httpie is what the sluice command's tests compare it with; h2 is the
# HTTP/2 state machine Tests/Servers/h2-goaway.py serves with; zstandard and brotlicffi
# (httpbin's own) the reference encoders Tests/Servers/codings.py answers in; dnspython the DNS
# messages of Tests/Servers/doh.py.
if [ ! -x "$venv/bin/gunicorn" ] || [ ! -x "$venv/bin/http" ] || ! "$venv/bin/python" -c "import httpbin, requests_cache, http_ece, jwcrypto, httpie, h2, zstandard, brotlicffi, dns" 2>/dev/null; then
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "httpbin>=0.10" "gunicorn>=21" "requests-cache>=1.1" "http-ece>=1.2" "jwcrypto>=1.5" "httpie>=3.2" "h2>=4.1" "zstandard>=0.22" "brotlicffi>=1.0" "dnspython>=2.4"
fi
if [ "$action" = venv ]; then echo "$venv/bin/python"; exit 0; fi
: "${dir:?state directory}"

mkdir -p "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$venv/bin/gunicorn" --bind "127.0.0.1:$port" --workers 2 --threads 16 --daemon --pid "$dir/httpbin.pid" \
  --error-logfile "$dir/httpbin-error.log" httpbin:app
for _ in $(seq 100); do
  if python3 -c "import urllib.request; urllib.request.build_opener(urllib.request.ProxyHandler({})).open('http://127.0.0.1:$port/get', timeout=1)" 2>/dev/null; then
    printf 'export SLUICE_HTTPBIN_URL=http://127.0.0.1:%s\nexport SLUICE_PYTHON=%s\n' "$port" "$venv/bin/python" > "$dir/httpbin.env"
    exit 0
  fi
  sleep 0.1
done
echo "httpbin did not come up on port $port:" >&2
cat "$dir/httpbin-error.log" >&2 || true
exit 1
