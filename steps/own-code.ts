/**
 * Where kowalski's own modules are for the threads and processes it starts — step threads,
 * isolated step children, the spawn helper, the data tool's server — and the Node flags
 * they start with. By default this build's: the sources (through tsx, `--import tsx` among
 * this process's flags) or `dist/`. The tests give the built `dist/` when it is current
 * (testkit/dist.ts), so no thread or child compiles TypeScript again.
 */
import { fileURLToPath } from 'node:url';

export interface OwnCode {
  /** Absolute path of a module, named from the program's root without extension: `steps/worker`, `bin/kowalski`. */
  file(fromRootNoExt: string): string;
  /** Node flags for the threads and children. */
  readonly execArgv: readonly string[];
}

/** This process's Node flags a child or thread should get too (`--import tsx` from the sources), minus debugger and test-runner ones. */
export function inheritedExecArgv(): string[] {
  return process.execArgv.filter((arg) => !/^--(inspect|debug|test|experimental-test|watch)/.test(arg));
}

/** Flags that load code (and take a value, as `--import tsx` or `--import=tsx`). */
const LOADING = /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C)$/;

/**
 * Of `execArgv`, the flags a worker thread takes: those that load code (`--import tsx`),
 * pick conditions, or switch experimental features. A Worker refuses V8's own flags
 * (`--expose-gc`, `--max-old-space-size=…`) and per-process ones (`--title`) with
 * ERR_WORKER_INVALID_EXEC_ARGV; they apply to the whole process anyway.
 */
export function threadExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (LOADING.test(arg)) {
      kept.push(arg);
      if (i + 1 < execArgv.length) kept.push(execArgv[++i]!);
    } else if (/^(--import|--require|--loader|--experimental-loader|--conditions)=/.test(arg) || /^--(no-)?experimental-/.test(arg) || arg === '--enable-source-maps' || arg === '--no-warnings') {
      kept.push(arg);
    }
  }
  return kept;
}

/** The modules of this build: `.ts` beside this file from the sources, `.js` from `dist/`. */
export function thisBuild(): OwnCode {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return {
    file: (fromRootNoExt) => fileURLToPath(new URL(`../${fromRootNoExt}${ext}`, import.meta.url)),
    execArgv: inheritedExecArgv(),
  };
}
