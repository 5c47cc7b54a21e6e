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

/** The modules of this build: `.ts` beside this file from the sources, `.js` from `dist/`. */
export function thisBuild(): OwnCode {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return {
    file: (fromRootNoExt) => fileURLToPath(new URL(`../${fromRootNoExt}${ext}`, import.meta.url)),
    execArgv: inheritedExecArgv(),
  };
}
