// An MCP client configured the way a hosted client is: only the server's URL, OAuth through the official TypeScript
// SDK's OAuthClientProvider (dynamic registration, authorization code with PKCE and the resource indicator), and URL
// elicitation declared. It prints one line per event for McpOAuthClientIT, which plays the person: it opens the
// AUTHORIZE and ELICIT URLs in a browser. Usage: node mcp-oauth-client.mjs MCP_URL
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = new URL(process.argv[2]);
const say = (event, data) => console.log(event + ' ' + JSON.stringify(data ?? null));

// the redirect URI: a loopback server that receives the authorization code, as a desktop client's does
let gotCode;
const code = new Promise((resolve) => { gotCode = resolve; });
const callback = http.createServer((req, res) => {
  const params = new URL(req.url, 'http://127.0.0.1').searchParams;
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>Signed in</title><h1>Signed in</h1>');
  if (params.get('code')) gotCode(params.get('code'));
});
await new Promise((resolve) => callback.listen(0, '127.0.0.1', resolve));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;

class MemoryProvider {
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return { client_name: 'actiongate McpOAuthClientIT', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; say('REGISTERED', { client_id: info.client_id }); }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; say('TOKEN', { token_type: tokens.token_type, scope: tokens.scope }); }
  redirectToAuthorization(authorizationUrl) { say('AUTHORIZE', { url: authorizationUrl.toString() }); }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}
const provider = new MemoryProvider();

const client = new Client({ name: 'actiongate-it', version: '1' }, { capabilities: { elicitation: { url: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say('ELICIT', request.params);
  // the person agreed to open the page; what happens there never passes through this client
  return { action: 'accept' };
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => say('COMPLETE',
  notification.params));

try {
  let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  try {
    await client.connect(transport);
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
    await transport.finishAuth(await code);
    say('AUTHORIZED', {});
    transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
  }
  say('CONNECTED', { protocol: transport.protocolVersion });
  const tools = await client.listTools();
  say('TOOLS', tools.tools.map((t) => ({ name: t.name, description: t.description })));
  say('READ', await client.callTool({ name: 'notes_lookup', arguments: { q: 'launch' } }));
  const write = { name: 'notes_post', arguments: { channel: 'project-launch', text: 'Launch moved to Friday.' } };
  say('RESULT', await client.callTool(write, undefined, { timeout: 300000 }));
  // the same call again in this session: the same action, its settled state, nothing sent twice
  say('AGAIN', await client.callTool(write, undefined, { timeout: 60000 }));
  await client.close();
} catch (e) {
  say('ERROR', { message: String(e && e.stack || e) });
  process.exitCode = 1;
} finally {
  callback.close();
}
