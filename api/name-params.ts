/** The JSON schema of a route's `:name` parameter (an adapter, an MCP server): a non-empty name of at most 64 characters. */
export const NAME_PARAMS = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
