import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DEPLOY_COMMAND, NoFunctions } from './no-functions.tsx';

describe('NoFunctions', () => {
  it('names the deploy command exactly as the CLI takes it', () => {
    expect(DEPLOY_COMMAND).toBe('orrery deploy NAME --code ./handler.mjs');
    const html = renderToStaticMarkup(<NoFunctions />);
    expect(html).toContain('<code>orrery deploy NAME --code ./handler.mjs</code>');
    expect(html).toContain('<code>orrery apply -f FILE</code>');
  });
});
