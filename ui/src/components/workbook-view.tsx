/**
 * An `.xlsx` artifact as a workbook: its sheets as tabs (ARIA tabs; the arrow keys, Home
 * and End move between them), each sheet as a DataTable whose header is the sheet's first
 * row, and a prominent download button for the exact file. The parser
 * (`read-excel-file/browser`) is imported on first use from its own file (ui/build.mjs):
 * the app's main bundle does not carry it for runs without workbooks.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Sheet } from 'read-excel-file/browser';
import { messageOf } from '../message-of';
import { DataTable, cellText } from './data-table';
import type { CellValue, DataColumnHead } from './data-table';
import { Loading } from './status';

interface SheetView {
  name: string;
  columns: DataColumnHead[];
  rows: CellValue[][];
}

type Parsed =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | { state: 'ready'; sheets: SheetView[] };

/** `A`, `B`, … `Z`, `AA`: a column's letters, the header of a column whose first cell is empty. */
function columnLetters(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function toSheetView(sheet: Sheet): SheetView {
  const data = sheet.data as unknown as CellValue[][];
  const width = data.reduce((w, row) => Math.max(w, row.length), 0);
  const header = data[0] ?? [];
  const columns = Array.from({ length: width }, (_, i) => ({ label: cellText(header[i]) ?? columnLetters(i) }));
  return { name: sheet.sheet, columns, rows: data.slice(1) };
}

/**
 * The parser unzips a workbook's big parts (over 512 KiB) in a Web Worker made from a blob:
 * URL. Where the page's Content-Security-Policy refuses such workers, the parser would wait
 * forever: the refusal ends the wait with an error instead.
 */
function workerRefused(): { refused: Promise<never>; stop: () => void } {
  let stop = (): void => undefined;
  const refused = new Promise<never>((_resolve, reject) => {
    const onViolation = (e: SecurityPolicyViolationEvent): void => {
      if (e.effectiveDirective !== 'worker-src' && e.blockedURI !== 'blob') return;
      reject(new Error('It is too large to read in the page: unpacking it needs a background worker, which the app’s security policy refuses.'));
    };
    document.addEventListener('securitypolicyviolation', onViolation);
    stop = () => document.removeEventListener('securitypolicyviolation', onViolation);
  });
  return { refused, stop };
}

/** The parser comes in its own file, fetched the first time a workbook is shown. */
async function readWorkbook(blob: Blob): Promise<SheetView[]> {
  const { default: readXlsxFile } = await import('read-excel-file/browser');
  const { refused, stop } = workerRefused();
  try {
    return (await Promise.race([readXlsxFile(blob), refused])).map(toSheetView);
  } finally {
    stop();
  }
}

export function WorkbookView({ blob, url, name, testId }: { blob: Blob; url: string; name: string; testId?: string }) {
  const [parsed, setParsed] = useState<Parsed>({ state: 'loading' });

  useEffect(() => {
    let live = true;
    setParsed({ state: 'loading' });
    readWorkbook(blob).then(
      (sheets) => { if (live) setParsed({ state: 'ready', sheets }); },
      (err: unknown) => { if (live) setParsed({ state: 'failed', message: messageOf(err) }); },
    );
    return () => { live = false; };
  }, [blob]);

  return (
    <section class="workbook" aria-label={`Workbook ${name}`} data-testid={testId}>
      <div class="workbook__bar">
        <p class="workbook__title">
          Workbook <code>{name}</code>
          {parsed.state === 'ready' && <span class="muted small"> · {parsed.sheets.length} {parsed.sheets.length === 1 ? 'sheet' : 'sheets'}</span>}
        </p>
        <a class="btn btn--primary" href={url} download={name} data-testid="download-workbook">Download workbook</a>
      </div>
      {parsed.state === 'loading' && <Loading label="Reading the workbook…" />}
      {parsed.state === 'failed' && (
        <div class="error-box" role="alert" data-testid="workbook-error">
          <p class="error-box__title">Could not read this workbook</p>
          <p>{parsed.message}</p>
          <p>Download it to open it in a spreadsheet program.</p>
        </div>
      )}
      {parsed.state === 'ready' && (parsed.sheets.length === 0
        ? <p class="muted">This workbook has no sheets.</p>
        : <SheetTabs sheets={parsed.sheets} name={name} />)}
    </section>
  );
}

/** The tab list and the selected sheet's panel; focus follows selection (automatic activation). */
function SheetTabs({ sheets, name }: { sheets: SheetView[]; name: string }) {
  const base = useId();
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const current = Math.min(selected, sheets.length - 1);
  const sheet = sheets[current]!;

  const select = (i: number, focus: boolean): void => {
    setSelected(i);
    if (focus) tabs.current[i]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent): void => {
    const n = sheets.length;
    const next = e.key === 'ArrowRight' ? (current + 1) % n
      : e.key === 'ArrowLeft' ? (current - 1 + n) % n
        : e.key === 'Home' ? 0
          : e.key === 'End' ? n - 1
            : null;
    if (next === null) return;
    e.preventDefault();
    select(next, true);
  };

  return (
    <>
      <div class="tabs" role="tablist" aria-label={`Sheets of ${name}`} onKeyDown={onKeyDown} data-testid="sheet-tabs">
        {sheets.map((s, i) => (
          <button key={i} type="button" role="tab" class="tab" id={`${base}-tab-${i}`}
            aria-selected={i === current} aria-controls={i === current ? `${base}-panel` : undefined} tabIndex={i === current ? 0 : -1}
            ref={(el) => { tabs.current[i] = el; }} onClick={() => select(i, false)}>
            {s.name}
          </button>
        ))}
      </div>
      <div class="tabpanel" role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${current}`} data-testid="sheet-panel" data-sheet={sheet.name}>
        {sheet.columns.length === 0
          ? <p class="muted">This sheet is empty.</p>
          : <DataTable key={current} caption={<>{sheet.name} <span class="muted">· {sheet.rows.length} {sheet.rows.length === 1 ? 'row' : 'rows'}</span></>}
            columns={sheet.columns} rows={sheet.rows} moreHint="Download the workbook to see them all." testId="sheet-table" />}
      </div>
    </>
  );
}
