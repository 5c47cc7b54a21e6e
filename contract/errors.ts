/** Every error answer of the HTTP API: a stable code (docs/errors.md) and a message, and sometimes more. */
export interface ApiErrorBody { error: { code: string; message: string; [key: string]: unknown } }

/** An error as a client is shown it: its code and message (the server narrows `Code` to its error codes). */
export interface CodedError<Code extends string = string> { code: Code; message: string }
