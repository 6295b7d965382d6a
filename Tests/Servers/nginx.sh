#!/usr/bin/env bash
# nginx for the interop tests and the benchmark, on a free 127.0.0.1 port.
#   nginx.sh up DIR     installs nginx-light if missing, starts nginx, writes its base URL to DIR/nginx.url
#   nginx.sh down DIR   stops it
# It serves small.json (1 KB), big.bin (1 MiB) and a few scripted paths (redirects, statuses).
set -euo pipefail
action=${1:?up|down} dir=${2:?state directory}
case "$action" in
down)
  if [ -f "$dir/nginx.pid" ]; then kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; fi
  exit 0 ;;
up) ;;
*) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac

if ! command -v nginx >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q nginx-light >/dev/null \
    || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q nginx >/dev/null
fi

mkdir -p "$dir/www" "$dir/tmp"
# nginx workers run as an unprivileged user: they must be able to read the files.
chmod 755 "$dir" "$dir/www"
python3 - "$dir/www" <<'PY'
import json, random, sys
d = sys.argv[1]
json.dump({"items": [{"id": i, "name": "item %d" % i, "tags": ["a", "b"]} for i in range(20)]}, open(d + "/small.json", "w"))
random.seed(7)
open(d + "/big.bin", "wb").write(random.randbytes(1 << 20))
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  default_type application/octet-stream;
  types { application/json json; }
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    location / { add_header Cache-Control "max-age=60"; }
    location = /redirect { return 302 /small.json; }
    location = /redirect-loop { return 302 /redirect-loop; }
    location = /redirect-ftp { return 302 ftp://127.0.0.1/x; }
    location = /status/503 { return 503 "busy\n"; }
  }
}
CONF
nginx -c "$dir/nginx.conf" -e "$dir/nginx-error.log"
for _ in $(seq 50); do
  if python3 -c "import urllib.request; urllib.request.build_opener(urllib.request.ProxyHandler({})).open('http://127.0.0.1:$port/small.json', timeout=1)" 2>/dev/null; then
    echo "http://127.0.0.1:$port" > "$dir/nginx.url"
    exit 0
  fi
  sleep 0.1
done
echo "nginx did not come up on port $port:" >&2
cat "$dir/nginx-error.log" >&2 || true
exit 1
