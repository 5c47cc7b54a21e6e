/**
 * The first screen's notice when config.toml names no default model: nothing that asks a
 * model (a horde's model steps, the chat, the Rookery's builder) can work yet, and Setup is
 * where one is chosen. Silent while loading and when the settings cannot be read (the screen
 * itself says why the server does not answer).
 */
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';

export function NoModelNotice() {
  const { api } = useServices();
  const setup = useResource(() => api.setup(), [api]);
  if (setup.data === undefined || setup.data.model.default !== null) return null;
  return (
    <div class="model-warning model-warning--page" role="status" data-testid="no-model">
      <p>
        <strong>No model is set up yet.</strong> Hordes with model steps, the chat and the Rookery's builder need one.{' '}
        <a href="#/setup" data-testid="no-model-setup">Choose a model in Setup</a>: a local Ollama, an OpenAI-compatible server, or an Anthropic or Gemini key.
      </p>
    </div>
  );
}
