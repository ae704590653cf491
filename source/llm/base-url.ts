import type { ProviderName } from '../domain.ts';
import { badInput } from '../errors.ts';
import { joined, said, type Said } from '../program.ts';
import { ProviderError } from './provider.ts';

/** OpenAI's own API (the SDK's default, named so that no environment variable of the SDK's picks another). */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * A server address from `--base-url` or a *_BASE_URL variable, checked before a session is created
 * or a call is made: an http:// or https:// URL. A user name or password in it is refused rather
 * than stripped, because the server would then refuse the calls without saying why; and it must not
 * be kept, since the address is saved with the session and shown in error messages. The same goes
 * for a key, token or other secret in its query string (`?api_key=…`) or fragment, which is refused
 * with its value hidden. `source` names where the address came from, `keyVar` where a key belongs
 * instead.
 */
export function checkBaseUrl(url: string, source: Said, keyVar: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw badInput(
			said`${source} ${JSON.stringify(withoutSecrets(withoutCredentials(url)))} is not a URL; give the server's address, e.g. http://localhost:8000/v1`,
		);
	}
	if (parsed.username !== '' || parsed.password !== '') {
		parsed.username = '';
		parsed.password = '';
		throw badInput(
			joined(
				said`${source} ${withoutSecrets(parsed.href)}: leave the user name and password out of the `,
				said`URL (it is saved with the session and shown in messages); give the key in ${keyVar}`,
			),
		);
	}
	const secrets = secretParams(parsed);
	if (secrets.length > 0) {
		throw badInput(
			joined(
				said`${source} ${withoutSecrets(parsed.href)}: leave the secret out of the URL (${secrets.map((n) => `"${n}"`).join(', ')}: `,
				said`it is saved with the session and shown in messages); give the key in ${keyVar}`,
			),
		);
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		throw badInput(
			joined(
				said`${source} ${withoutCredentials(parsed.href)}: booook talks to a server over HTTP; `,
				'give an http:// or https:// address, e.g. http://localhost:8000/v1',
			),
		);
	}
	return url;
}

/**
 * The address the Anthropic SDK takes: the server without `/v1`, which the SDK adds to every path.
 * OpenAI's addresses end in `/v1`, so one given the OpenAI way (`http://host:port/v1`) is the
 * same server; kept, it would be asked for `/v1/v1/messages` and answer 404.
 */
export function anthropicRoot(url: string): string {
	return url.replace(/\/v1\/*$/u, '');
}

/**
 * Which server an address names, for what is kept of its answers (the embeddings of a book): the
 * address as given, except that a server on this machine (localhost, 127.0.0.0/8, ::1) is named
 * without its host's spelling and port. A local server (llama.cpp, vLLM, Ollama) is often started on
 * whatever port is free, and restarting it on another is the same server of the same model; a
 * remote host's port, by contrast, can be another service. Paired with the model name the server is
 * asked for, so two local models stay apart.
 */
export function serverIdentity(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return url;
	}
	if (!isLoopback(parsed.hostname)) return url;
	return `${parsed.protocol}//loopback${parsed.pathname.replace(/\/+$/u, '')}`;
}

function isLoopback(host: string): boolean {
	const name = host.toLowerCase().replace(/\.$/u, '');
	return (
		name === 'localhost' ||
		name.endsWith('.localhost') ||
		name === '[::1]' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(name)
	);
}

/**
 * A parameter name that holds a secret: a key (api_key, apikey, key, subscription-key), a token
 * (token, access_token, auth_token), a password, a secret, a signature, credentials. `api-version`
 * and the like are not.
 */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|sig|credential|bearer|jwt|session/iu;

/** The names of the query (and fragment) parameters of `url` that hold a secret. */
function secretParams(url: URL): string[] {
	const names = [...url.searchParams.keys(), ...new URLSearchParams(url.hash.slice(1)).keys()];
	return [...new Set(names.filter((n) => SECRET_NAME.test(n)))];
}

/** `text` with the value of every secret-looking `name=value` hidden. */
function withoutSecrets(text: string): string {
	return text.replace(/([?&#;]([^=&#;?/]*)=)([^&#;]*)/gu, (whole, head: string, name: string) =>
		SECRET_NAME.test(name) ? `${head}…` : whole,
	);
}

/** Where the key of `provider` is read from, named where a key belongs. */
export function keyVariable(provider: ProviderName): string {
	return provider === 'anthropic'
		? 'ANTHROPIC_API_KEY'
		: provider === 'openai'
			? 'OPENAI_API_KEY'
			: 'OPENAI_API_KEY or ANTHROPIC_API_KEY';
}

/** What an address that is not an http(s) URL may show: anything before an @ could be a password. */
function withoutCredentials(text: string): string {
	return text.replace(/^([^/]*\/\/)?[^/@]*@/u, '$1…@');
}

/**
 * A server that answers a call with a web page is not an API: a base URL that points at a
 * website, a login page or a proxy's error page. The SDKs would read it as an empty stream and
 * retry; this says what happened instead, once.
 */
export function webPageAnswer(
	label: string,
	baseURL: string,
	keyVar: string,
	response: Response,
): ProviderError | null {
	const type = response.headers.get('content-type') ?? '';
	if (!/^\s*text\/html\b/iu.test(type)) return null;
	const setting = keyVar.replace(/_API_KEY$/u, '_BASE_URL');
	return new ProviderError(
		`${label}: ${baseURL} answered with a web page (HTML), not an API; check --base-url (or ${setting})`,
		false,
	);
}
