/** Whether a default model is configured (Setup): the Rookery's builder needs one. Undefined while Setup loads. */
import { useResource } from './use-resource';
import { useServices } from '../services';

export function useHasModel(): boolean | undefined {
  const { api } = useServices();
  const setup = useResource(() => api.setup(), [api]);
  if (setup.data === undefined) return setup.error === undefined ? undefined : false;
  return setup.data.model.default !== null;
}
