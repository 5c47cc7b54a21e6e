/** The vault's notes as a folder tree: folders fold, a note links to itself on the Vault screen. */
import { href } from '../router';
import type { NoteInfo } from '../types';

interface Folder { name: string; path: string; folders: Map<string, Folder>; notes: NoteInfo[] }

function treeOf(notes: readonly NoteInfo[]): Folder {
  const root: Folder = { name: '', path: '', folders: new Map(), notes: [] };
  for (const note of notes) {
    const parts = note.path.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (next === undefined) {
        next = { name: part, path: `${folder.path}${part}/`, folders: new Map(), notes: [] };
        folder.folders.set(part, next);
      }
      folder = next;
    }
    folder.notes.push(note);
  }
  return root;
}

export function NoteTree({ notes, current }: { notes: readonly NoteInfo[]; current: string | undefined }) {
  if (notes.length === 0) return <p class="muted small" data-testid="vault-empty">No notes yet. Agents write here with create_note and remember; you can add Markdown files to the vault folder yourself.</p>;
  return <ul class="note-tree" data-testid="note-tree"><FolderItems folder={treeOf(notes)} current={current} /></ul>;
}

function FolderItems({ folder, current }: { folder: Folder; current: string | undefined }) {
  const folders = [...folder.folders.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      {folders.map((f) => (
        <li key={f.path} class="note-tree__folder">
          <details open>
            <summary>{f.name}/</summary>
            <ul><FolderItems folder={f} current={current} /></ul>
          </details>
        </li>
      ))}
      {folder.notes.map((n) => (
        <li key={n.path}>
          <a href={href({ name: 'vault', note: n.path })} class={n.path === current ? 'note-tree__note note-tree__note--current' : 'note-tree__note'}
            aria-current={n.path === current ? 'page' : undefined} title={n.path} data-testid={`note-link-${n.path}`}>
            {n.title}
          </a>
        </li>
      ))}
    </>
  );
}
