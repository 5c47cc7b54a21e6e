/**
 * The little of express (a dependency of the MCP SDK's server-side auth, without types
 * installed) that testkit/oauth-mcp.ts uses. Only the testkit imports express.
 */
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Request extends IncomingMessage {
    body?: unknown;
  }
  export interface Response extends ServerResponse {
    status(code: number): Response;
    json(body: unknown): Response;
    redirect(url: string): void;
  }
  export type NextFunction = (err?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
  export interface Express {
    (req: IncomingMessage, res: ServerResponse): void;
    use(...handlers: (string | RequestHandler)[]): Express;
    all(path: string, ...handlers: RequestHandler[]): Express;
  }
  interface ExpressFactory {
    (): Express;
    json(): RequestHandler;
  }
  const express: ExpressFactory;
  export default express;
}
