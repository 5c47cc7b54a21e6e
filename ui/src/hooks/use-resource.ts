/** Load something from the API: loading, data or error, with reload and quiet refresh. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';

export interface Resource<T> {
  /** The last good answer; kept while a refresh runs or fails. */
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Loads again, showing the loading state. */
  reload: () => void;
  /** Loads again in the background, keeping what is shown until the answer comes. */
  refresh: () => void;
}

export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; loading: boolean }>(
    { data: undefined, error: undefined, loading: true },
  );
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback((quiet: boolean) => {
    const mine = ++generation.current;
    if (!quiet) setState({ data: undefined, error: undefined, loading: true });
    loadRef.current().then(
      (data) => { if (mine === generation.current) setState({ data, error: undefined, loading: false }); },
      (err: unknown) => {
        if (mine === generation.current) setState((s) => ({ data: s.data, error: asApiError(err), loading: false }));
      },
    );
  }, []);

  useEffect(() => {
    run(false);
    return () => { generation.current++; };
    // The caller names the deps, as with useEffect.
  }, deps);

  const reload = useCallback(() => run(false), [run]);
  const refresh = useCallback(() => run(true), [run]);
  return { ...state, reload, refresh };
}
