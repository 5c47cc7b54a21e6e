/**
 * Stable error codes. A code is never reused or renumbered; each is documented in
 * docs/errors.md (a test checks that). Codes are grouped by what the caller should do:
 * - `terminal`: the input or the definition is wrong; retrying changes nothing.
 * - `retryable`: a passing condition; the same call may succeed later.
 * - `operator`: a person must decide (approve, deny, repair a file).
 */
export type ErrorGroup = 'terminal' | 'retryable' | 'operator';

export const ERROR_CODES = {
  // usage and configuration
  KW_ERR_USAGE: { group: 'terminal', summary: 'a command was called with bad arguments' },
  KW_ERR_CONFIG_INVALID: { group: 'terminal', summary: 'config.toml cannot be parsed or holds a bad value' },
  KW_ERR_CONFIG_EXISTS: { group: 'terminal', summary: 'kowalski init: the data folder already has a config.toml (left unchanged)' },
  KW_ERR_INPUT_INVALID: { group: 'terminal', summary: 'a run input is missing, unknown or of the wrong type' },
  // horde loading and validation
  KW_ERR_HORDE_NOT_FOUND: { group: 'terminal', summary: 'no horde with that id or folder' },
  KW_ERR_HORDE_INVALID: { group: 'terminal', summary: 'the horde folder has validation errors' },
  KW_ERR_FRONT_MATTER: { group: 'terminal', summary: 'a file has no front matter, unclosed fences or TOML that does not parse' },
  KW_ERR_KEY_MISSING: { group: 'terminal', summary: 'a required key is absent' },
  KW_ERR_KEY_TYPE: { group: 'terminal', summary: 'a key has a value of the wrong type' },
  KW_ERR_KEY_VALUE: { group: 'terminal', summary: 'a key has a value outside what is allowed' },
  KW_ERR_PATH_ESCAPES: { group: 'terminal', summary: 'a path is absolute or climbs out of its root with .., or leads out of it through a link' },
  KW_ERR_STEP_FILE_MISSING: { group: 'terminal', summary: 'a pipeline step has no agents/<step>.md' },
  KW_ERR_STEP_NAME_MISMATCH: { group: 'terminal', summary: 'an agents/<file>.md declares a different name' },
  KW_ERR_STEP_KIND_UNKNOWN: { group: 'terminal', summary: 'a step declares a kind the loader does not know' },
  KW_ERR_PIPELINE_EMPTY: { group: 'terminal', summary: 'pipeline has no steps' },
  KW_ERR_PIPELINE_DUPLICATE: { group: 'terminal', summary: 'a step name appears twice in pipeline' },
  KW_ERR_EDGE_UNKNOWN_STEP: { group: 'terminal', summary: 'an edge names a step that is not in pipeline' },
  KW_ERR_EDGE_SELF_LOOP: { group: 'terminal', summary: 'an edge goes from a step to itself' },
  KW_ERR_EDGE_DUPLICATE: { group: 'terminal', summary: 'two edges share the same from and to' },
  KW_ERR_EDGE_LOOP_UNBOUNDED: { group: 'terminal', summary: 'a loop-back edge lacks when = "pass"|"fail" or max_loops > 0' },
  KW_ERR_STEP_UNREACHABLE: { group: 'terminal', summary: 'a step is not connected to the rest of the graph' },
  KW_ERR_PROMPT_MISSING: { group: 'terminal', summary: 'a prompt_file does not exist' },
  KW_ERR_TRIGGER_INVALID: { group: 'terminal', summary: 'a trigger has a bad kind, schedule, path or option' },
  KW_ERR_INPUTS_INVALID: { group: 'terminal', summary: 'an [[inputs]] entry is malformed' },
  KW_WARN_TOOL_UNKNOWN: { group: 'terminal', summary: 'a step lists a tool nothing provides (a warning at validation)' },
  KW_WARN_ID_MISSING: { group: 'terminal', summary: 'horde.md has no id, so the folder name is used (a warning)' },
  KW_WARN_PROMPT_UNSET: { group: 'terminal', summary: 'a model step has no prompt_file (a warning)' },
  KW_WARN_MAX_LOOPS_IGNORED: { group: 'terminal', summary: 'max_loops on a forward edge has no effect (a warning)' },
  KW_WARN_INPUT_TYPE_UNKNOWN: { group: 'terminal', summary: 'an [[inputs]] entry has a type kowalski does not know; it is a plain text field, as in 1.x (a warning)' },
  KW_WARN_MANIFEST_APP_MD: { group: 'terminal', summary: 'the folder has app.md and no horde.md; app.md is read as the manifest, as in 1.x (a warning)' },
  KW_WARN_WORKDIR_ABSOLUTE: { group: 'terminal', summary: "horde.md's workdir is absolute; the run works in its own folder (<run>/output) and writes nothing there (a warning)" },
  KW_WARN_DELIVERY_FALLBACK: { group: 'terminal', summary: 'delivery_root_rel does not look like a workdir path; HANDOFF.md is used, as in 1.x (a warning)' },
  KW_ERR_HORDE_TOO_LARGE: { group: 'terminal', summary: 'a horde folder holds more files or bytes than the loader reads' },
  KW_ERR_HORDE_ID_TAKEN: { group: 'terminal', summary: 'a user horde uses the id of a built-in or of another user horde' },
  KW_ERR_TOO_MANY_PROBLEMS: { group: 'terminal', summary: 'a horde has more problems than a report lists: this summary counts the ones left out' },
  // agent profiles (<data>/team/<name>.md)
  KW_ERR_AGENT_NOT_FOUND: { group: 'terminal', summary: 'no agent profile with that name' },
  KW_ERR_AGENT_INVALID: { group: 'terminal', summary: 'an agent profile has validation errors, so it was not saved' },
  KW_ERR_AGENT_NAME: { group: 'terminal', summary: "an agent's name is not lowercase letters, digits and hyphens, or differs from its file's name" },
  KW_ERR_AGENT_KEY_UNKNOWN: { group: 'terminal', summary: "an agent profile's front matter has a key that profiles do not take" },
  KW_ERR_AGENT_PROMPT_EMPTY: { group: 'terminal', summary: 'an agent profile has no system prompt (the Markdown after the front matter is empty)' },
  KW_ERR_AGENT_TOO_LARGE: { group: 'terminal', summary: 'an agent profile file is larger than kowalski reads (256 KiB)' },
  KW_ERR_AGENT_BUILTIN: { group: 'terminal', summary: 'a built-in agent profile cannot be removed (only a user profile, such as an override of it)' },
  // store
  KW_ERR_DATA_DIR_LOCKED: { group: 'operator', summary: 'another kowalski engine owns this data directory' },
  KW_ERR_STORE_CORRUPT: { group: 'operator', summary: 'the database file is damaged; nothing was changed' },
  KW_ERR_STORE_TOO_NEW: { group: 'operator', summary: 'the database was written by a newer kowalski' },
  KW_ERR_STORE_MIGRATIONS_INVALID: { group: 'terminal', summary: 'the schema migrations are misnumbered (a gap, a duplicate, a bad file name), or the database recorded another migration under one of their numbers' },
  KW_ERR_STORE_MIGRATION_FAILED: { group: 'operator', summary: 'a schema migration cannot be applied to the rows this database holds; nothing was changed' },
  KW_ERR_STORE_UNAVAILABLE: { group: 'retryable', summary: 'the PostgreSQL store cannot be reached, lost its connection or did not answer in time; open it again' },
  KW_ERR_STORE_COPY_NOT_EMPTY: { group: 'terminal', summary: 'kowalski store copy: the target store already holds rows; a copy goes only into an empty store' },
  KW_ERR_STORE_COPY_NODES_LIVE: { group: 'operator', summary: 'kowalski store copy: live nodes use a Postgres end of the copy (stop them, or --force)' },
  KW_ERR_STORE_COPY_MISMATCH: { group: 'operator', summary: "kowalski store copy: the copy's check failed (a table's count, or a run whose log does not fold to its row); it was rolled back" },
  KW_ERR_EVENT_UNKNOWN: { group: 'terminal', summary: 'the log holds an event type or version this build does not know' },
  KW_ERR_REPLAY_DIVERGED: { group: 'terminal', summary: 'a logged event does not fit the run state it is applied to' },
  // runs and operator actions
  KW_ERR_RUN_NOT_FOUND: { group: 'terminal', summary: 'no run with that id' },
  KW_ERR_PROJECT_NOT_FOUND: { group: 'terminal', summary: "the run's project folder (input project_path, or the input labelled Project path) does not exist or is not a folder" },
  KW_ERR_RUN_FINISHED: { group: 'terminal', summary: 'the run has already finished' },
  KW_ERR_FIRING_ELSEWHERE: { group: 'retryable', summary: 'another node of the shared Postgres store has been starting the run of this firing (a webhook delivery, a cron instant) for too long; try again later' },
  KW_ERR_TRIGGER_ELSEWHERE: { group: 'retryable', summary: "another node of the shared Postgres store has been deciding a firing of this trigger (its overlap, and starting the run it allows) for too long; nothing was started or recorded; try again later" },
  KW_ERR_RUN_ELSEWHERE: { group: 'retryable', summary: 'another node of the shared Postgres store is executing the run and did not take the action forwarded to it in time (paused or cut off?); try again, or once its lease has passed to another node' },
  KW_ERR_STORE_FENCED: { group: 'operator', summary: 'this node lost its runs to another node (it was paused or cut off longer than its leases last); its commit was refused and it stopped' },
  KW_ERR_NO_PENDING_APPROVAL: { group: 'terminal', summary: 'the run has no step waiting for approval (or not the one named)' },
  KW_ERR_APPROVAL_MISMATCH: { group: 'terminal', summary: 'the command about to run differs from the one approved' },
  KW_ERR_APPROVAL_DENIED: { group: 'terminal', summary: 'the operator denied the step' },
  KW_ERR_APPROVAL_STALE: { group: 'terminal', summary: 'the approval named a command hash that is not the one the step waits with (the operator read another command); nothing was approved' },
  KW_ERR_OUTCOME_UNKNOWN: { group: 'operator', summary: 'a non-idempotent step was interrupted; the operator must decide' },
  KW_ERR_LOOP_EXHAUSTED: { group: 'terminal', summary: 'a loop-back edge reached its max_loops' },
  KW_ERR_NO_ROUTE: { group: 'terminal', summary: 'a step failed and no fail edge leads anywhere' },
  KW_ERR_RAN_PAST_FAILURE: { group: 'terminal', summary: 'a step failed and the run went on past it by always edges, as in 1.x; the later steps ran' },
  KW_ERR_RUN_CANCELLED: { group: 'terminal', summary: 'the run was cancelled' },
  // steps
  KW_ERR_STEP_TIMEOUT: { group: 'retryable', summary: 'a step ran longer than its timeout_secs and was stopped' },
  KW_ERR_STEP_CANCELLED: { group: 'terminal', summary: 'a step was stopped because its run was cancelled' },
  KW_ERR_STEP_CRASHED: { group: 'retryable', summary: 'the worker or child process running a step died' },
  KW_ERR_STEP_FAILED: { group: 'terminal', summary: 'a step kind reported an error' },
  KW_ERR_COMMAND_SPAWN: { group: 'terminal', summary: 'a command could not be started' },
  KW_ERR_COMMAND_FAILED: { group: 'terminal', summary: 'a command exited with a non-zero status' },
  KW_ERR_COMMAND_LOST: { group: 'retryable', summary: 'the spawn helper running a command died; the command was killed with it' },
  KW_ERR_INGEST_LIMIT: { group: 'terminal', summary: 'an ingested folder exceeds the file count, byte or depth limit' },
  KW_ERR_INGEST_SOURCE: { group: 'terminal', summary: 'an ingested path does not exist or cannot be read' },
  KW_ERR_PATCH_NONE: { group: 'terminal', summary: 'the previous artifact holds no fenced diff block' },
  KW_ERR_PATCH_INVALID: { group: 'terminal', summary: 'a diff block does not parse or touches a path outside the project' },
  KW_ERR_PATCH_CONFLICT: { group: 'terminal', summary: 'a diff does not apply to the project as it is' },
  KW_ERR_NO_MODEL: { group: 'terminal', summary: 'a model step ran with no model provider configured' },
  KW_ERR_CONTEXT_MISSING: { group: 'terminal', summary: 'a context path or @step:…@ reference has no file' },
  KW_ERR_STEP_KIND_UNAVAILABLE: { group: 'terminal', summary: 'a step kind is known but not available in this build yet' },
  KW_ERR_STEP_KIND_MODULE: { group: 'terminal', summary: "a step kind's module cannot be loaded or has no default function" },
  // triggers and bundles
  KW_ERR_TRIGGER_NOT_FOUND: { group: 'terminal', summary: 'no trigger of that name in that horde (or not of the kind asked)' },
  KW_ERR_TRIGGER_DISABLED: { group: 'terminal', summary: 'the trigger is switched off: turn it on in the app or with kowalski triggers enable' },
  KW_ERR_WEBHOOK_SIGNATURE: { group: 'terminal', summary: 'a webhook delivery has no signature, or one that does not match its body and the secret' },
  KW_ERR_WEBHOOK_STALE: { group: 'terminal', summary: "a signed webhook delivery's timestamp is outside the allowed tolerance (a replay or a wrong clock)" },
  KW_ERR_WEBHOOK_SECRET: { group: 'terminal', summary: 'a webhook trigger names a secret (secret_env) that is not set, so no delivery can be checked' },
  KW_ERR_BUNDLE_INVALID: { group: 'terminal', summary: 'a .kwf.zip bundle failed a check (unsafe or colliding entry names, links, sizes, ratio, count, a broken archive, or invalid horde content); nothing was written' },
  KW_ERR_HORDE_EXISTS: { group: 'terminal', summary: 'a horde with that id is already installed: choose another id or replace it explicitly' },
  // the Rookery (horde drafts)
  KW_ERR_DRAFT_INVALID: { group: 'terminal', summary: 'a horde draft is not a JSON object, an edit of it makes no sense (an unknown step, a taken name), or it has validation errors and cannot be written' },
  KW_ERR_DRAFT_TOO_LARGE: { group: 'terminal', summary: 'a horde draft is over the size the Rookery reads (1 MB of JSON, 200 steps, 1000 edges, 50 triggers, 32 levels deep)' },
  // the server
  KW_ERR_BAD_REQUEST: { group: 'terminal', summary: 'a request body, query or websocket frame does not match its schema' },
  KW_ERR_UNAUTHORIZED: { group: 'terminal', summary: 'the API token is missing or wrong (every route needs it, on loopback too): the CLI reads it from the data folder, the app gets it from a sign-in link (kowalski open)' },
  KW_ERR_LOGIN_CODE: { group: 'terminal', summary: 'a sign-in link was used already, has expired or was never made here: run kowalski open for a new one' },
  KW_ERR_FORBIDDEN_HOST: { group: 'terminal', summary: 'the Host header does not name this server (DNS rebinding)' },
  KW_ERR_FORBIDDEN_ORIGIN: { group: 'terminal', summary: "a request or websocket comes from another site's page" },
  KW_ERR_UNSUPPORTED_MEDIA: { group: 'terminal', summary: 'a request body is not JSON' },
  KW_ERR_BODY_TOO_LARGE: { group: 'terminal', summary: 'a request body or websocket frame is over the size limit' },
  KW_ERR_NOT_FOUND: { group: 'terminal', summary: 'no such route' },
  KW_ERR_BAD_URL: { group: 'terminal', summary: 'a request path does not decode (a % not followed by two hex digits, or bytes that are not UTF-8)' },
  KW_ERR_MALFORMED_REQUEST: { group: 'terminal', summary: 'a request is not valid HTTP/1.1 (request line, header syntax, Content-Length, chunked encoding); the connection is closed' },
  KW_ERR_URI_TOO_LONG: { group: 'terminal', summary: 'a request line, or one part of its path, is longer than the server reads' },
  KW_ERR_HEADERS_TOO_LARGE: { group: 'terminal', summary: 'the request line and headers together are larger than the server reads (16 KiB)' },
  KW_ERR_REQUEST_TIMEOUT: { group: 'retryable', summary: 'a request did not arrive in time (its headers or body came too slowly); the connection is closed' },
  KW_ERR_SERVER_BUSY: { group: 'retryable', summary: 'the server already takes as many uploads or websocket clients as it allows at once; try again shortly' },
  KW_ERR_ARTIFACT_NOT_FOUND: { group: 'terminal', summary: "no such file in the run's workdir" },
  KW_ERR_LISTEN: { group: 'terminal', summary: 'the server cannot listen on the address and port asked for (in use, not allowed, not this machine)' },
  KW_ERR_SERVER_UNREACHABLE: { group: 'retryable', summary: 'a kowalski server owns the data directory but does not answer' },
  KW_ERR_SERVER_NOT_RUNNING: { group: 'operator', summary: 'the command needs the operator app, and no kowalski server runs on the data directory (start one with kowalski serve)' },
  // models, tools, MCP, traces
  KW_ERR_MODEL_REF: { group: 'terminal', summary: 'a model name is not "provider:model" with a provider this build knows' },
  KW_ERR_MODEL_AUTH: { group: 'operator', summary: 'the provider needs a key that is missing, or refused the key it was given' },
  KW_ERR_MODEL_UNREACHABLE: { group: 'retryable', summary: 'the model provider cannot be reached (connection refused, DNS, reset)' },
  KW_ERR_MODEL_TIMEOUT: { group: 'retryable', summary: 'the model provider did not answer (or went silent mid-stream) within the time limit' },
  KW_ERR_MODEL_RATE_LIMITED: { group: 'retryable', summary: 'the provider answered 429 (rate limited) on every retry' },
  KW_ERR_MODEL_SERVER: { group: 'retryable', summary: 'the provider answered 5xx (or overloaded) on every retry' },
  KW_ERR_MODEL_NOT_FOUND: { group: 'terminal', summary: 'the provider has no model by that name (for Ollama: not pulled)' },
  KW_ERR_MODEL_REQUEST: { group: 'terminal', summary: 'the provider refused the request as invalid (e.g. the prompt is too long)' },
  KW_ERR_MODEL_NO_TOOLS: { group: 'terminal', summary: 'the model does not support native tool calls (auto mode switches to text)' },
  KW_ERR_MODEL_BAD_RESPONSE: { group: 'terminal', summary: "the provider's answer cannot be understood" },
  KW_ERR_TOOL_UNKNOWN: { group: 'terminal', summary: 'a step or an agent profile lists a tool that nothing provides' },
  KW_ERR_TOOL_NAME_CLASH: { group: 'terminal', summary: 'two tools offered together would reach the model under one name (names travel as letters, digits, _ and -)' },
  KW_ERR_TOOL_INVALID: { group: 'terminal', summary: 'a tool registered through the library has a bad name, description, run function or input schema' },
  KW_ERR_TOOL_NAME_TAKEN: { group: 'terminal', summary: 'a tool registered through the library has the name of a tool that exists already' },
  KW_ERR_TOOL_NOT_OFFERED: { group: 'terminal', summary: 'the model called a tool that this step does not offer' },
  KW_ERR_TOOL_ARGS: { group: 'terminal', summary: "a tool call's arguments are not a JSON object or fail the tool's schema" },
  KW_ERR_TOOL_FAILED: { group: 'terminal', summary: 'a tool reported an error' },
  KW_ERR_TOOL_TIMEOUT: { group: 'retryable', summary: 'a tool did not answer within its time limit' },
  KW_ERR_TOOL_LOOP_REPEATED: { group: 'terminal', summary: 'the model repeated an identical tool call, which ends the loop' },
  KW_ERR_TOOL_LOOP_BUDGET: { group: 'terminal', summary: 'the tool loop used up its iteration budget without a final answer' },
  KW_ERR_TOOL_LOOP_ERRORS: { group: 'terminal', summary: 'the model made more invalid tool calls than the loop allows it to correct' },
  // chat sessions and delegation
  KW_ERR_CHAT_NOT_FOUND: { group: 'terminal', summary: 'no chat session with that id' },
  KW_ERR_CHAT_BUSY: { group: 'retryable', summary: 'the chat session is answering a message already; send the next one when the turn has ended' },
  KW_ERR_CHAT_NOT_STOPPED: { group: 'terminal', summary: 'more budget was asked for a chat session whose last turn did not stop on its budget' },
  KW_ERR_ENGINE_CLOSING: { group: 'retryable', summary: 'the engine is closing; a chat turn under way goes on from its log at the next start' },
  KW_ERR_MEMORY_CONSOLIDATE: { group: 'retryable', summary: 'the model asked to consolidate memories did not answer with a JSON list of facts' },
  KW_ERR_CHAT_REFUSED: { group: 'terminal', summary: 'the chat session machine refused an event (a bug, or a log written by another build)' },
  KW_ERR_BUDGET_EXHAUSTED: { group: 'operator', summary: 'a chat turn used every model call of its budget (shared by the whole delegation tree); grant more to go on' },
  KW_ERR_AGENT_CYCLE: { group: 'terminal', summary: 'a delegation would call an agent that is already in the chain above it (A → B → A)' },
  KW_ERR_AGENT_DEPTH: { group: 'terminal', summary: 'a delegation would go deeper than the depth cap ([chat] max_depth)' },
  KW_ERR_TOOL_OUTCOME_UNKNOWN: { group: 'operator', summary: 'a tool that is not safe to repeat was interrupted by a crash before its result was recorded; it may or may not have taken effect' },
  KW_ERR_FETCH_BLOCKED: { group: 'terminal', summary: 'web_fetch refused a URL: a private, loopback, link-local, CGNAT, multicast or metadata address, or a scheme other than http/https' },
  KW_ERR_FETCH_FAILED: { group: 'retryable', summary: 'a page could not be fetched (DNS, connection, HTTP error status)' },
  KW_ERR_FETCH_LIMIT: { group: 'terminal', summary: 'a page exceeded the size, time or redirect limit' },
  // a plugin's process (engine/plugins/runner/)
  KW_ERR_PLUGIN_PERMISSION: { group: 'terminal', summary: "a plugin tried what its grant does not allow (read or write outside its paths, start a process or a worker, fetch a host it was not granted); Node's permission model or the engine refused it" },
  KW_ERR_PLUGIN_START: { group: 'terminal', summary: "a plugin's process could not start: a tool's module is missing or throws when loaded, its export is not a function, its folder holds a link to outside itself, it would see kowalski's data folder, or it did not answer in time" },
  KW_ERR_PLUGIN_CRASHED: { group: 'retryable', summary: "a plugin's process exited during a call; it is started again at the next call" },
  KW_ERR_PLUGIN_TIMEOUT: { group: 'retryable', summary: "a plugin's tool did not answer within its time limit; its process was killed and is started again at the next call" },
  KW_ERR_PLUGIN_RESULT_LIMIT: { group: 'terminal', summary: "a plugin's tool answered with more than the size limit, or not with text or JSON" },
  KW_ERR_PLUGIN_ADAPTER: { group: 'terminal', summary: "a plugin adapter: its plugin declares no such adapter, or its receive answered with something that is not { status?, body?, messages } of valid inbound messages" },
  KW_ERR_PLUGIN_STOPPED: { group: 'terminal', summary: "a plugin's process was stopped (revoked, rescanned, kowalski shutting down) while a call waited for it" },
  KW_ERR_PLUGIN_FAILED: { group: 'operator', summary: "a plugin's process crashed, hung or failed to start more often than its restart limit allows; its tools fail until it is granted again or rescanned" },
  KW_ERR_SEARCH_UNCONFIGURED: { group: 'terminal', summary: 'web_search was called but no search engine is configured in [tools.web_search]' },
  KW_ERR_SEARCH_FAILED: { group: 'retryable', summary: 'the configured search engine failed to answer' },
  KW_ERR_FILE_ROOT_UNSET: { group: 'terminal', summary: 'a file tool was called but no tools folder is chosen in Setup ([tools] root)' },
  KW_ERR_FILE_OUTSIDE_ROOT: { group: 'terminal', summary: "a file tool path leaves the tools folder (.., absolute, symlink) or names kowalski's data directory" },
  KW_ERR_FILE_NOT_FOUND: { group: 'terminal', summary: 'a file tool path does not exist' },
  KW_ERR_FILE_TOO_LARGE: { group: 'terminal', summary: 'a file is larger than a file tool reads or writes' },
  // the vault (notes, the audited writes, revert)
  KW_ERR_VAULT_PATH: { group: 'terminal', summary: 'a vault path is absolute, climbs out with .., passes a symlink, is hidden or too long, or does not name a .md note' },
  KW_ERR_VAULT_NOT_FOUND: { group: 'terminal', summary: 'no note at that vault path (read_note, append_note)' },
  KW_ERR_VAULT_EXISTS: { group: 'terminal', summary: 'create_note was asked for a note that exists already (append_note adds to it)' },
  KW_ERR_VAULT_TOO_LARGE: { group: 'terminal', summary: 'a note, or what a write would make of it, is larger than [vault] max_note_bytes' },
  KW_ERR_NOTE_TABLE: { group: 'terminal', summary: 'a vault note given as a table (`vault:<note>`) holds no Markdown table, more than one, or a row with more cells than its header' },
  KW_ERR_VAULT_NO_CALLER: { group: 'terminal', summary: 'a vault write tool was called outside a chat session (a model step of a horde): vault writes by tools are made by chat agents, each one audited with its session and model call; a horde writes a note with a vault_note step, or an agent step' },
  // the Rookery's drafts
  KW_ERR_DRAFT_NOT_FOUND: { group: 'terminal', summary: 'no Rookery draft with that id' },
  KW_ERR_ROOKERY_NO_SESSION: { group: 'terminal', summary: "a builder's Rookery tool was called outside a chat session (a horde step): the tools work on the draft of the conversation" },
  KW_ERR_VAULT_WRITE_NOT_FOUND: { group: 'terminal', summary: 'no vault write with that id' },
  KW_ERR_VAULT_NOT_REVERTIBLE: { group: 'terminal', summary: 'the write cannot be reverted: it is a revert itself, was reverted already, or never completed' },
  KW_ERR_VAULT_CONFLICT: { group: 'operator', summary: 'a revert was refused because the note changed since the write (the diff shows how); edit the note by hand instead' },
  KW_ERR_VAULT_NOTE_BUSY: { group: 'retryable', summary: 'with a Postgres store shared by several nodes: another node has been writing the same note for over 10 s (paused?); nothing was written, try again' },
  KW_ERR_VAULT_WRITE_INTERRUPTED: { group: 'operator', summary: 'a vault write was cut by a crash and, at the next start, the note was neither as before nor as after it; nothing was changed, look at the note' },
  // the data tool and the data steps
  KW_ERR_DATA_ROOT: { group: 'terminal', summary: "the data tool's root folder does not exist or is not a folder" },
  KW_ERR_DATA_TABLE_UNKNOWN: { group: 'terminal', summary: 'no table of the data root has that name' },
  KW_ERR_DATA_LOAD: { group: 'terminal', summary: 'a spreadsheet under the data root cannot be read as a table' },
  KW_ERR_DATA_SQL: { group: 'terminal', summary: "a query failed in DuckDB (the message is DuckDB's, naming the bad column or table)" },
  KW_ERR_DATA_READ_ONLY: { group: 'terminal', summary: 'query_sql takes one read-only statement (SELECT, WITH, VALUES, DESCRIBE…), nothing that writes, attaches, installs or sets' },
  KW_ERR_DATA_TIMEOUT: { group: 'terminal', summary: 'a query ran longer than the data tool allows and was interrupted' },
  KW_ERR_DATA_NO_TABLES: { group: 'terminal', summary: "the data tool's root holds no spreadsheet it can read (.csv, .tsv, .parquet, .json, .ndjson, .xlsx)" },
  KW_ERR_SQL_BATCH_EMPTY: { group: 'terminal', summary: 'the plan a sql_batch step reads has no ```sql block' },
  KW_ERR_SQL_BATCH_FAILED: { group: 'terminal', summary: 'one or more queries of a sql_batch step failed (every error is listed)' },
  KW_ERR_REPORT_INPUT: { group: 'terminal', summary: "an xlsx_report step's input (the previous step's JSON results) is missing or not results" },
  KW_ERR_MCP_CONFIG: { group: 'terminal', summary: 'an [[mcp.servers]] entry in config.toml is malformed' },
  KW_ERR_MCP_UNAVAILABLE: { group: 'retryable', summary: 'an MCP server cannot be started or reached, or died' },
  KW_ERR_MCP_TIMEOUT: { group: 'retryable', summary: 'an MCP server did not answer within the time limit' },
  KW_ERR_MCP_SIGN_IN: { group: 'operator', summary: 'an MCP server asks for a sign-in that kowalski does not have, or its authorization server refused the stored one (a refresh token revoked or expired): run `kowalski mcp login <server>`' },
  KW_ERR_MCP_LOGIN: { group: 'terminal', summary: '`kowalski mcp login` could not finish: the server offers no OAuth sign-in (or no dynamic client registration), the authorization server refused or answered an error, the callback carried the wrong state, or nobody signed in within 5 minutes' },
  KW_ERR_MCP_OAUTH_FILE: { group: 'operator', summary: 'a stored MCP sign-in (secrets/mcp-oauth/<server>.json in the data folder) cannot be read or is not what kowalski wrote: remove it and run `kowalski mcp login <server>` again' },
  KW_ERR_MCP_SERVER_EXISTS: { group: 'terminal', summary: 'Setup: config.toml has an [[mcp.servers]] entry of that name already' },
  KW_ERR_MCP_SERVER_NOT_FOUND: { group: 'terminal', summary: 'Setup: config.toml has no [[mcp.servers]] entry of that name' },
  KW_ERR_TRACE_NOT_FOUND: { group: 'terminal', summary: 'no trace with that id' },
  // the vault's search
  KW_ERR_VAULT_REINDEX_NEEDED: { group: 'operator', summary: "the vault's vectors were made with another embedding model (or dimension) than config.toml names: run `kowalski vault reindex`; until then semantic search gives keyword results with a note" },
  // backup and restore
  KW_ERR_BACKUP_INVALID: { group: 'terminal', summary: 'a backup archive is damaged, tampered with or not a kowalski backup (a checksum, an entry name that would leave the target, a missing or extra entry, a name too long or a file where a folder is needed, a database that fails integrity_check or is empty, of another program or of a newer schema); nothing was placed at the target' },
  KW_ERR_BACKUP_TARGET: { group: 'terminal', summary: 'a backup cannot be written there (the file exists, its folder is missing) or restored there (the --to folder is not empty, is a link or a file, lies below a dangling link, or cannot be written)' },
  KW_ERR_BACKUP_SOURCE: { group: 'terminal', summary: 'there is nothing to back up: the data folder holds no kowalski.sqlite' },
  // re-run from a step
  KW_ERR_RUN_ACTIVE: { group: 'retryable', summary: 'the run is still queued or running: a re-run reuses the results of a run that has ended or is parked' },
  KW_ERR_RERUN_STEP_UNKNOWN: { group: 'terminal', summary: "a re-run's --from names a step that is not in the horde's pipeline" },
  KW_ERR_RERUN_MISMATCH: { group: 'terminal', summary: "a step before a re-run's --from does not match the earlier run (not in its horde, another kind, or it failed there): re-run from that step instead" },
  // adapters (inbound channels)
  KW_ERR_ADAPTER_CONFIG: { group: 'terminal', summary: 'an [adapters.<name>] section of config.toml is malformed (the message names the section and the key)' },
  KW_ERR_ADAPTER_EXISTS: { group: 'terminal', summary: 'Setup: config.toml has an [adapters.<name>] section of that name already' },
  KW_ERR_ADAPTER_NOT_FOUND: { group: 'terminal', summary: 'no adapter of that name (or of that type) is configured under [adapters.<name>]' },
  KW_ERR_ADAPTER_DISABLED: { group: 'terminal', summary: 'the adapter is switched off or not running: turn it on in the app or with kowalski adapters enable' },
  KW_ERR_ADAPTER_START: { group: 'retryable', summary: 'an adapter failed to start, or did not start in time; it is shown as error and the rest of the server goes on' },
  KW_ERR_ADAPTER_REPLY: { group: 'retryable', summary: "an adapter could not send the agent's answer back to its channel after every attempt" },
  KW_ERR_ADAPTER_NO_OUTBOUND: { group: 'terminal', summary: "a send step named an adapter whose type sends nothing of its own (only slack and email do): webhook, discord and calendar answer or serve, they do not post" },
  KW_ERR_SEND_REFUSED: { group: 'terminal', summary: "a send step's adapter refused the message (Slack answered ok: false, an HTTP error, or the mail server rejected it): nothing was delivered; the message names the adapter, the recipient and the refusal" },
  KW_ERR_SEND_OUTCOME_UNKNOWN: { group: 'terminal', summary: "a send step's delivery began but its outcome is not known (kowalski was killed while sending, or the service did not answer): it is not sent again; check the recipient, and start a new run to send again" },
  KW_ERR_ADAPTER_TURN: { group: 'terminal', summary: "the chat turn of an inbound message ended without an answer (an error, or its budget used up), so nothing was sent back" },
  // checks before a run starts
  KW_ERR_MODEL_NOT_READY: { group: 'operator', summary: "a horde's model steps have no model configured, or its provider does not answer or lacks the model (kowalski run checks before starting; --skip-model-check)" },
  KW_ERR_INTERNAL: { group: 'terminal', summary: 'a bug: an unexpected exception' },
  // run budgets
  KW_ERR_BUDGET_INVALID: { group: 'terminal', summary: "a [budget] limit (horde.md, config.toml, or a raise) is not a known key or not a number above 0" },
  KW_ERR_BUDGET_TOO_LOW: { group: 'terminal', summary: 'a budget raise leaves a limit at or below what the run has spent already' },
  // review steps (a human gate on the previous step's artifact)
  KW_ERR_REVIEW_NO_ARTIFACT: { group: 'terminal', summary: 'a review step has no previous step whose artifact it could show (it is a root, or the steps leading to it write different files)' },
  KW_ERR_REVIEW_STALE: { group: 'terminal', summary: 'the artifact under review changed since the operator saw it (the hash they approved or edited from is not the one waiting); read it again' },
  KW_ERR_NOT_A_REVIEW: { group: 'terminal', summary: 'an edit was sent for a step that is not a review waiting for the operator (a command approval cannot be edited)' },
  KW_ERR_REVIEW_EDIT_INTERRUPTED: { group: 'operator', summary: 'an approved edit of a reviewed artifact was cut by a crash and, when the review step ran again, the file was neither as reviewed nor as edited, or the staged edit was gone; nothing was changed, look at the file' },
  // adapters: Slack and Discord
  KW_ERR_SLACK_API: { group: 'retryable', summary: "the Slack Web API (at [adapters.slack] api_url) refused a call ({ok: false}: the error it named), answered an HTTP error or was unreachable; a reply is tried again" },
  KW_ERR_DISCORD_API: { group: 'retryable', summary: "the Discord API (at [adapters.discord] api_url) refused the edit of a deferred response, answered an HTTP error or was unreachable; a reply is tried again (the interaction's token lasts 15 minutes)" },
  // plugins (kowalski-plugin.toml, grants)
  KW_ERR_PLUGIN_MANIFEST: { group: 'terminal', summary: "a plugin's kowalski-plugin.toml (or its package.json's kowalski.plugin) is missing, does not parse, has a bad or missing key (a glob in a granted path, an input schema that does not compile), or is not a regular file of bounded size; the message names the file, the key and the line" },
  KW_ERR_PLUGIN_INCOMPATIBLE: { group: 'terminal', summary: "a plugin's kowalski range (kowalski-plugin.toml) does not include this kowalski's version, so it is refused" },
  KW_ERR_PLUGIN_NOT_FOUND: { group: 'terminal', summary: 'no plugin of that name was found under <data>/plugins/ (rescan after installing one)' },
  KW_ERR_PLUGIN_INVALID: { group: 'terminal', summary: 'the plugin failed a check (see its failures in kowalski plugins), so it cannot be granted' },
  KW_ERR_PLUGIN_CHANGED: { group: 'terminal', summary: 'a grant named the version or permissions the operator was shown, and the plugin (after a rescan) is no longer that; nothing was granted' },
  KW_ERR_PLUGIN_NOT_GRANTED: { group: 'operator', summary: "a plugin's tool was called while the plugin is not granted (or its grant no longer matches its version and permissions)" },
  // the calendar adapter (its tools)
  KW_ERR_CALENDAR_SOURCE: { group: 'retryable', summary: 'a calendar source (an ICS file or URL, the CalDAV server) cannot be read, or is not iCalendar' },
  KW_ERR_CALENDAR_WRITE_OFF: { group: 'terminal', summary: 'calendar_create_event was refused: the operator has not allowed writing (write = true in [adapters.<name>], with a CalDAV calendar to write to)' },
  // install.sh (installing a release tarball; the shell script prints these codes)
  KW_ERR_INSTALL_CHECKSUM: { group: 'terminal', summary: "install.sh: the tarball's SHA-256 is not the one given; nothing was installed" },
  KW_ERR_INSTALL_SOURCE: { group: 'terminal', summary: 'install.sh: the tarball or the sum cannot be read or downloaded, or the sum is not a SHA-256' },
  KW_ERR_INSTALL_REQUIRES: { group: 'terminal', summary: 'install.sh: Node.js 20.19 or newer, or npm, is missing' },
  KW_ERR_INSTALL_NPM: { group: 'operator', summary: 'install.sh: npm install -g failed, or what it installed does not run' },
} as const satisfies Record<string, { group: ErrorGroup; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error as plain data: how errors cross threads, processes, the event log and JSON. */
export interface PlainError {
  code: ErrorCode;
  name: string;
  message: string;
  retryable: boolean;
  stack?: string;
  /** Where the problem is, when it is in a file: a path, a key, a line. */
  where?: { file?: string; key?: string; line?: number };
}

export class KowalskiError extends Error {
  readonly code: ErrorCode;
  readonly where: PlainError['where'];
  constructor(code: ErrorCode, message: string, options: { cause?: unknown; where?: PlainError['where'] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KowalskiError';
    this.code = code;
    this.where = options.where;
  }
  get retryable(): boolean {
    return ERROR_CODES[this.code].group === 'retryable';
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** A thrown value's message: an Error's `message`, anything else as `String(err)`. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Any thrown value → plain data. Never loses the message; unknown throws get KW_ERR_INTERNAL. */
export function toPlainError(err: unknown, fallback: ErrorCode = 'KW_ERR_INTERNAL'): PlainError {
  if (err instanceof KowalskiError) {
    const out: PlainError = { code: err.code, name: err.name, message: err.message, retryable: err.retryable };
    if (err.stack !== undefined) out.stack = err.stack;
    if (err.where !== undefined) out.where = err.where;
    return out;
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const k = isErrorCode(code) ? code : fallback;
    const out: PlainError = {
      code: k,
      name: err.name,
      message: err.message || String(code ?? 'error without a message'),
      retryable: ERROR_CODES[k].group === 'retryable',
    };
    if (err.stack !== undefined) out.stack = err.stack;
    return out;
  }
  return { code: fallback, name: 'Error', message: String(err), retryable: ERROR_CODES[fallback].group === 'retryable' };
}

/** Plain data → an Error again, on the receiving side of a boundary. */
export function fromPlainError(plain: PlainError): KowalskiError {
  const err = new KowalskiError(plain.code, plain.message, plain.where === undefined ? {} : { where: plain.where });
  if (plain.stack !== undefined) err.stack = plain.stack;
  return err;
}

/** `file: key: message` — how every problem in a file is printed. */
export function formatWhere(where: PlainError['where']): string {
  if (where === undefined) return '';
  const parts: string[] = [];
  if (where.file !== undefined) parts.push(where.line === undefined ? where.file : `${where.file}:${where.line}`);
  if (where.key !== undefined) parts.push(where.key);
  return parts.join(': ');
}
