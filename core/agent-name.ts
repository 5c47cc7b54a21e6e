/** What may name an agent profile: its file name in team/, a chat's agent, an `agent` step's `agent`. */

export const AGENT_NAME = /^[a-z][a-z0-9-]*$/;
/** The longest a profile's name may be, in characters. */
export const MAX_AGENT_NAME = 64;

/** Why `name` cannot name a profile, or undefined when it can. */
export function badAgentName(name: string): string | undefined {
  if (name.length > MAX_AGENT_NAME) return `the name "${name.slice(0, MAX_AGENT_NAME)}…" is longer than ${MAX_AGENT_NAME} characters`;
  if (!AGENT_NAME.test(name)) return `"${name}" cannot name an agent: use lowercase letters, digits and hyphens, starting with a letter (e.g. "researcher")`;
  return undefined;
}
