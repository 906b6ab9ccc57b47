// A tiny npm registry on 127.0.0.1 serving one package tarball the test
// made with `npm pack`: the app's "Install" runs the real npm against it
// (npm_config_registry), with no network.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename } from "node:path";

/** serveTarball serves name@version from tarball; returns { url, close() }. */
export async function serveTarball({ name, version, tarball, bin }) {
  const data = readFileSync(tarball);
  const shasum = createHash("sha1").update(data).digest("hex");
  const integrity = "sha512-" + createHash("sha512").update(data).digest("base64");
  const file = basename(tarball);
  const hits = [];
  let port = 0; // known once listening; srv.address() is null once closing, and a late request must not throw
  const srv = createServer((req, res) => {
    hits.push(req.url);
    const url = decodeURIComponent(req.url.split("?")[0]);
    if (url === "/" + name) {
      const body = {
        name,
        "dist-tags": { latest: version },
        versions: {
          [version]: { name, version, bin, dist: { tarball: `http://127.0.0.1:${port}/-/${file}`, shasum, integrity } },
        },
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    } else if (url === "/-/" + file) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": data.length });
      res.end(data);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
    }
  });
  await new Promise((ok) => srv.listen(0, "127.0.0.1", ok));
  port = srv.address().port;
  return { url: `http://127.0.0.1:${port}/`, hits, close: () => new Promise((ok) => srv.close(ok)) };
}
