// ProjectHostSetting: where a project lives — this machine, or a host from
// the Hosts page at a path there (git then runs on that host).

import { useEffect, useState } from "react";
import { errorMessage } from "../../lib/errors";
import { Button, Field, FormError } from "../../lib/ui";
import { wailsHostsApi, type HostsApi, type HostView } from "./api";

export function ProjectHostSetting({ projectId, api }: { projectId: string; api?: HostsApi }) {
  const [a] = useState(() => api ?? wailsHostsApi());
  const [hosts, setHosts] = useState<HostView[]>([]);
  const [host, setHost] = useState("");
  const [path, setPath] = useState("");
  const [error, setError] = useState("");
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    void (async () => {
      try {
        const [hs, ph] = await Promise.all([a.list(), a.projectHost(projectId)]);
        setHosts(hs);
        setHost(ph.host);
        setPath(ph.path);
      } catch (e) {
        setError(errorMessage(e));
      }
    })();
  }, [a, projectId]);
  const save = async () => {
    setError("");
    try {
      const ph = await a.setProjectHost(projectId, host, host ? path.trim() : "");
      setHost(ph.host);
      setPath(ph.path);
      setSaved(true);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <form
      className="jc-form"
      data-testid="project-host"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Field label="Host">
        <select className="jc-select" value={host} onChange={(e) => (setHost(e.target.value), setSaved(false))}>
          <option value="">This machine</option>
          {hosts.map((h) => (
            <option key={h.name} value={h.name}>
              {h.name}
            </option>
          ))}
        </select>
      </Field>
      {host ? (
        <Field label="Folder on the host" hint="Absolute path of the repository there">
          <input className="jc-input" value={path} onChange={(e) => (setPath(e.target.value), setSaved(false))} placeholder="/home/me/src/app" />
        </Field>
      ) : null}
      <FormError error={error} />
      <Button type="submit" size="sm">
        {saved ? "Saved" : "Save"}
      </Button>
    </form>
  );
}
