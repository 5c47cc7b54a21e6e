/** Search the vault: keyword (always) and semantic (when switched on in Setup); a note says when only keyword results came back. */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { href } from '../router';
import { useServices } from '../services';
import type { SearchAnswer } from '../types';
import { ErrorBox } from './status';

export function VaultSearch() {
  const { api } = useServices();
  const [query, setQuery] = useState('');
  const [semantic, setSemantic] = useState(false);
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (query.trim() === '') return;
    setBusy(true);
    setError(null);
    try {
      setAnswer(await api.vaultSearch(query.trim(), semantic));
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="vault-search">
      <form role="search" aria-label="Search the vault" onSubmit={(e) => void submit(e)}>
        <div class="vault-search__row">
          <input type="search" value={query} placeholder="Search notes…" aria-label="Search notes" data-testid="vault-search-input"
            onInput={(e) => setQuery(e.currentTarget.value)} />
          <button type="submit" class="btn btn--small" disabled={busy} data-testid="vault-search-go">Search</button>
        </div>
        <label class="small">
          <input type="checkbox" checked={semantic} onChange={(e) => setSemantic(e.currentTarget.checked)} data-testid="vault-search-semantic" /> also by meaning (semantic)
        </label>
      </form>
      {error !== null && <ErrorBox error={error} title="The search failed" />}
      {answer !== null && (
        <div data-testid="vault-search-results">
          {answer.note !== undefined && <p class="small notice" data-testid="vault-search-note">{answer.note}</p>}
          {answer.hits.length === 0 && <p class="muted small">Nothing matches “{answer.query}”.</p>}
          <ol class="search-hits">
            {answer.hits.map((h) => (
              <li key={`${h.path}#${h.heading ?? ''}`}>
                <a href={href({ name: 'vault', note: h.path })} data-testid={`hit-${h.path}`}>{h.title}</a>
                <span class="muted small"> {h.path}{h.heading === undefined ? '' : ` › ${h.heading}`} · {h.found.join(' + ')}</span>
                <p class="small search-hits__snippet"><Snippet text={h.snippet} /></p>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

/** The matched words are between `[` and `]`: shown as <mark>, everything as text. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]\n]{1,200}\])/);
  return <>{parts.map((p, i) => (p.startsWith('[') && p.endsWith(']') && p.length > 2 ? <mark key={i}>{p.slice(1, -1)}</mark> : p))}</>;
}
