/** Any hash the app does not know. */
export function NotFoundScreen({ path }: { path: string }) {
  return (
    <section aria-labelledby="nf-title">
      <h1 id="nf-title">Nothing here</h1>
      <p>The app has no page at <code>#{path}</code>. Go to the <a href="#/hordes">hordes</a> or the <a href="#/runs">runs</a>.</p>
    </section>
  );
}
