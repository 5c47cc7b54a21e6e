/**
 * Route validators compiled at a route's first request instead of at start. Fastify's own
 * compiler (@fastify/ajv-compiler, with the app's ajv options) compiles every route's body,
 * query and params schema when the app starts: about a fifth of a server's start-up CPU,
 * for routes most starts never serve. Here each route gets a stand-in that compiles its
 * schema with that same compiler the first time a request needs it, then validates as
 * before (a validator's `errors` are what Fastify reads after a refusal).
 *
 * Fastify lowercases a route's header schema only with its own compiler; no route has one,
 * and one added later is refused at start (KW_ERR_INTERNAL) rather than left case-sensitive.
 * A schema that does not compile fails at its first request; `compileAll` compiles every
 * route's at once (`Api.compileSchemas`, which a test of the routes calls).
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler, FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { KowalskiError, messageOf } from '../core/index.js';

type BuildCompiler = ReturnType<typeof AjvCompiler>;
type ExternalSchemas = Parameters<BuildCompiler>[0];
type AjvOptions = NonNullable<Parameters<BuildCompiler>[1]>;
type Compile = ReturnType<BuildCompiler>;
type RouteSchema = Parameters<Compile>[0];

interface Validate {
  (data: unknown): boolean;
  errors?: FastifySchemaValidationError[] | null;
}

export interface LazyValidators {
  /** For Fastify's `schemaController.compilersFactory.buildValidator`. */
  buildValidator: (externalSchemas: ExternalSchemas, options: AjvOptions) => FastifySchemaCompiler<unknown>;
  /** Compile every route's schema now (throws the first that does not compile, naming its route); how many there are. */
  compileAll(): number;
}

export function createLazyValidators(): LazyValidators {
  const build = AjvCompiler();
  const pending: (() => void)[] = [];
  return {
    buildValidator(externalSchemas, options) {
      let compile: Compile | undefined;
      return (route) => {
        if (route.httpPart === 'headers') {
          throw new KowalskiError('KW_ERR_INTERNAL', `${route.method ?? ''} ${route.url ?? ''}: a header schema is not supported (the lazy validators do not lowercase its names)`);
        }
        let compiled: Validate | undefined;
        const own = (): Validate => {
          compile ??= build(externalSchemas, options);
          compiled ??= compile(route as RouteSchema) as Validate;
          return compiled;
        };
        pending.push(() => {
          try {
            own();
          } catch (err) {
            throw new KowalskiError('KW_ERR_INTERNAL', `${route.method ?? ''} ${route.url ?? ''} (${route.httpPart ?? ''}): ${messageOf(err)}`);
          }
        });
        const validate: Validate = (data) => {
          const fn = own();
          const ok = fn(data);
          validate.errors = fn.errors ?? null;
          return ok;
        };
        return validate;
      };
    },
    compileAll() {
      for (const compile of pending) compile();
      return pending.length;
    },
  };
}

/** The Fastify option that installs them. */
export function lazyValidatorOptions(validators: LazyValidators): Pick<FastifyServerOptions, 'schemaController'> {
  return { schemaController: { compilersFactory: { buildValidator: validators.buildValidator as never } } };
}
