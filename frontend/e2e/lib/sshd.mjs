// A real sshd on 127.0.0.1 for the screenshot scripts (hosts-shot.mjs,
// remote-task-shot.mjs): Debian's openssh-server with its own config, host
// key and a throwaway key pair, and a separate HOME as "the remote". The
// app's HOME gets a ~/.ssh/config that lists that server as "build-box",
// an unreachable "gpu-1" and a "*.internal" pattern.

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./app.mjs";

const SSHD = "/usr/sbin/sshd";

/**
 * startSSHD starts the server in its own process group (stop it with
 * process.kill(-sshd.pid)) and returns it with its folders: tmp (remove it
 * when done), home (the app's HOME) and remoteHome (the host's HOME).
 */
export async function startSSHD() {
  // A short folder: the ControlMaster socket lives under the data dir.
  const tmp = mkdtempSync("/tmp/jchs");
  const srvDir = join(tmp, "sshd");
  const remoteHome = join(tmp, "remote-home");
  const home = join(tmp, "home");
  for (const d of [srvDir, remoteHome, join(home, ".ssh")]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const keygen = (p) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "jc-shot", "-f", p]);
  keygen(join(srvDir, "host_ed25519"));
  keygen(join(srvDir, "id_ed25519"));
  writeFileSync(join(srvDir, "authorized_keys"), readFileSync(join(srvDir, "id_ed25519.pub")), { mode: 0o600 });
  const port = await freePort();
  const user = execFileSync("id", ["-un"], { encoding: "utf8" }).trim();
  writeFileSync(
    join(srvDir, "sshd_config"),
    `ListenAddress 127.0.0.1:${port}
HostKey ${srvDir}/host_ed25519
PidFile ${srvDir}/sshd.pid
AuthorizedKeysFile ${srvDir}/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowUsers ${user}
SetEnv HOME=${remoteHome}
`,
  );
  writeFileSync(join(srvDir, "known_hosts"), `[127.0.0.1]:${port} ${readFileSync(join(srvDir, "host_ed25519.pub"), "utf8")}`);
  writeFileSync(
    join(home, ".ssh/config"),
    `Host build-box
  HostName 127.0.0.1
  Port ${port}
  User ${user}
  IdentityFile ${srvDir}/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile ${srvDir}/known_hosts
  StrictHostKeyChecking yes

Host gpu-1
  HostName 127.0.0.1
  Port 1
  ProxyJump build-box

Host *.internal
  User ops
`,
    { mode: 0o600 },
  );
  mkdirSync("/run/sshd", { recursive: true });
  const sshd = spawn(SSHD, ["-D", "-e", "-f", join(srvDir, "sshd_config")], { detached: true, stdio: "ignore" });
  return { sshd, tmp, home, remoteHome };
}
