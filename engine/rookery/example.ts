/** `exampleDraft`: a small draft that validates and shows the shape — ingest → process → deliver. */
import type { HordeDraft } from './types.js';

export function exampleDraft(): HordeDraft {
  return {
    id: 'rookery-demo',
    display_name: 'Rookery demo',
    description: 'Takes a question and some notes, sorts out what matters, and writes a short answer.',
    steps: [
      {
        name: 'ingest',
        kind: 'ingest',
        display_name: 'Ingest',
        description: 'Collects the question and the source material from the run form.',
        prompt_body: '',
        output: 'ingest.md',
        context_paths: [],
        tools: [],
        inputs: [
          { id: 'question', type: 'textarea', label: 'What should this horde work on?', required: true },
          { id: 'source', type: 'textarea', label: 'Source material (notes, links, paths)', required: false },
        ],
      },
      {
        name: 'process',
        kind: 'process',
        display_name: 'Process',
        description: 'Pulls out the facts that bear on the question.',
        prompt_body: 'List the facts in the material that bear on the question, one per line, each with where it came from.\n',
        output: 'process.md',
        context_paths: ['@artifact@'],
        tools: [],
        inputs: [],
      },
      {
        name: 'deliver',
        kind: 'deliver',
        display_name: 'Deliver',
        description: 'Writes the answer the operator reads.',
        prompt_body: 'Answer the question in a few short paragraphs, using only the facts you were given.\n',
        output: 'HANDOFF.md',
        context_paths: ['@step:ingest@', '@step:process@'],
        tools: [],
        inputs: [],
      },
    ],
    edges: [],
    triggers: [],
    workdir: 'output',
    delivery_root_rel: 'HANDOFF.md',
    display: { default_question: 'What are the three most important points in these notes?' },
  };
}
