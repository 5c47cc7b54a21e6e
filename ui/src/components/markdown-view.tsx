/** Markdown rendered with raw HTML switched off (see markdown.ts). */
import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown';

export function MarkdownView({ source, testId }: { source: string; testId?: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return <div class="markdown" data-testid={testId} dangerouslySetInnerHTML={{ __html: html }} />;
}
