/** The entry: take a sign-in link's code, wire the token store, the API client and the websocket, then render the app. */
import { render } from 'preact';
import { createApi } from './api';
import { App } from './app';
import { localTokenStore, TokenPrompter } from './auth';
import { takeSignInCode } from './sign-in';
import { KowalskiSocket, socketUrl } from './socket';
import './app.css';
import './chat.css';
import './rookery.css';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const tokens = localTokenStore(storage());
// A link that no longer works (used, expired) says so when the app asks how to get in.
const signIn = await takeSignInCode(window.location, window.history, tokens);
const prompter = new TokenPrompter(signIn === 'refused');
const socket = new KowalskiSocket({ url: socketUrl(window.location), tokens });
const api = createApi({ tokens, prompter, onToken: () => socket.reconnect() });

socket.start();
const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App services={{ api, socket }} prompter={prompter} />, root);
}
