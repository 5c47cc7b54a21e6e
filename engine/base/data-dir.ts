/** Where kowalski keeps everything: $KOWALSKI_HOME, else the platform's data folder. */
import os from 'node:os';
import path from 'node:path';

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.KOWALSKI_HOME !== undefined && env.KOWALSKI_HOME !== '') return path.resolve(env.KOWALSKI_HOME);
  const home = env.HOME ?? os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'kowalski');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'kowalski');
  if (env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== '') return path.join(env.XDG_DATA_HOME, 'kowalski');
  return path.join(home, '.local', 'share', 'kowalski');
}

/** The fixed layout inside a data directory; `filesDir` (`[store] files`, shared by the nodes of a Postgres store) holds the run folders and the vault instead when set. */
export function dataPaths(dataDir: string, filesDir?: string) {
  const runs = path.join(filesDir ?? dataDir, 'runs');
  return {
    dataDir,
    config: path.join(dataDir, 'config.toml'),
    database: path.join(dataDir, 'kowalski.sqlite'),
    hordes: path.join(dataDir, 'hordes'),
    /** The user's agent profiles, `<name>.md`. */
    team: path.join(dataDir, 'team'),
    runs,
    /** The notes agents and people share: plain Markdown (`<files>/vault` with `[store] files`: every node reads and writes the same notes). */
    vault: path.join(filesDir ?? dataDir, 'vault'),
    /** Semantic search's vectors (sqlite-vec), kept apart from the event log. */
    vectors: path.join(dataDir, 'vectors.sqlite'),
    /** Installed plugins: npm packages (`package.json`, `node_modules/`), `local/` folders, each plugin's `data/<name>/`. */
    plugins: path.join(dataDir, 'plugins'),
    runDir: (runId: string) => path.join(runs, runId),
  };
}
export type DataPaths = ReturnType<typeof dataPaths>;
