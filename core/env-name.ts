/** What names an environment variable in kowalski's settings (`api_key_env`, `<key>_env`, `secret_env`, a plugin's `env` grant): letters, digits and `_`, not starting with a digit. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
