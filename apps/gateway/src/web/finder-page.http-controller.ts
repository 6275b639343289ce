import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { finderResumeBodySchema, MESSAGE_MAX_LENGTH, ResponseCode, type Message, type PublicItem } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ConversationsService } from '../conversations/conversations.service';
import type { ThreadCaller } from '../conversations/thread-access-cache';
import { INTERNAL_ERROR_ANSWER, toHttpError, type HttpErrorAnswer } from '../http/http-error';
import { namedLanguage } from '../http/request-language';
import { PublicItemsService } from '../items/public-items.service';
import { limitUnknownCodeLookups, UnknownCodeLimiter } from '../items/unknown-code-limit';
import {
  clearedFinderCookie,
  FINDER_FORM_BODY_LIMIT_BYTES,
  finderCookie,
  finderPagePath,
  finderTokenFromCookies,
  isSameOrigin,
  parseFinderForm,
  validateFinderForm,
} from './finder-form';
import { FinderPageRenderer, type FinderPageInput } from './finder-page-renderer';
import { FIRST_VISIT_PAGES_MAX, FirstVisitPages } from './first-visit-pages';

interface FinderPageRoute {
  Params: { code: string };
  Querystring: { resume?: unknown };
}
type FinderPageRequest = FastifyRequest<FinderPageRoute>;

const FORM_TYPE = 'application/x-www-form-urlencoded';

interface PageState {
  code: string;
  language: string;
  item: PublicItem | null;
  finderToken?: string;
  error?: HttpErrorAnswer;
  values?: FinderPageInput['values'];
}

/**
 * `GET /found/{code}` and `POST /found/{code}`: the finder page rendered here from the web build's server entry, so a
 * finder whose browser runs no script reads the item, writes to the owner (a form post answered with a redirect to
 * the page, PRG) and reads the owner's answers; their finder token travels in an HttpOnly cookie of that page alone.
 * A browser that runs the app sees it take the page over. Plain Fastify routes, like /lang: pages are no part of the
 * API (no OpenAPI operation, no JSON errors); every rule of writing (the spam limits, the finder token, the message
 * schema) is the API's own, through the same services.
 */
@Injectable()
export class FinderPageHttpController implements OnModuleInit {
  private readonly logger = new Logger(FinderPageHttpController.name);
  private renderer: FinderPageRenderer | null = null;
  private readonly firstVisitPages: FirstVisitPages;
  private readonly publicOrigin: string;
  private readonly secureCookie: boolean;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectConfig() private readonly config: GatewayConfig,
    private readonly items: PublicItemsService,
    private readonly conversations: ConversationsService,
    private readonly unknownCodes: UnknownCodeLimiter,
  ) {
    const publicUrl = new URL(config.PUBLIC_URL);
    this.publicOrigin = publicUrl.origin;
    this.secureCookie = publicUrl.protocol === 'https:';
    // Without the scan cache every scan's item is a new object, so no kept page would ever be used again.
    this.firstVisitPages = new FirstVisitPages(config.SCAN_CACHE_MAX_ITEMS === 0 ? 0 : FIRST_VISIT_PAGES_MAX);
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.WEB_DIST) return;
    // Loaded once; a build without the server entry leaves /found/* to found.html (WebAppFallback).
    this.renderer = await FinderPageRenderer.load(this.config.WEB_DIST);
    if (!this.renderer) {
      this.logger.warn(`WEB_DIST=${this.config.WEB_DIST} has no server-rendered finder page: /found/* answers found.html`);
      return;
    }
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Form bodies for this route only: every other route stays JSON only (a cross-site form cannot reach the API).
    fastify.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FINDER_FORM_BODY_LIMIT_BYTES }, (request, body, done) => {
      if (request.routeOptions.url !== '/found/:code') {
        done(Object.assign(new Error(`Unsupported Media Type: ${FORM_TYPE}`), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), undefined);
        return;
      }
      done(null, body);
    });
    // Both look the code up first, behind the unknown-code limit, and answer a blocked address with the page.
    const config = { limitsUnknownCodesItself: true };
    fastify.get('/found/:code', { config }, (request: FinderPageRequest, reply) => this.showPage(request, reply));
    // A link typed or copied with a trailing slash is the same page: sent to its one address (relative, so the
    // public host stays), query and all, where the form posts and its links resolve as they should.
    fastify.get('/found/:code/', (request: FinderPageRequest, reply) => reply.redirect(canonicalFinderPath(request.params.code, request.url), 301));
    fastify.post<FinderPageRoute>(
      '/found/:code',
      { config, errorHandler: (error, request, reply) => this.refusePost(error, request, reply) },
      (request, reply) => this.postForm(request, reply),
    );
  }

  private async showPage(request: FinderPageRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { code } = request.params;
    const language = namedLanguage(request) ?? 'en';
    const item = await this.lookUp(request, reply, code, language);
    if (!item) return reply;
    if (!item.activated) return reply.redirect(`/activate/${encodeURIComponent(code)}`, 302);
    const finderToken = finderTokenFromCookies(request.headers.cookie);
    const { resume } = request.query;
    if (typeof resume === 'string' && resume !== '') return this.resume(request, reply, { code, language, item, finderToken }, resume);
    return this.sendPage(reply, { code, language, item, finderToken });
  }

  /**
   * A resume link from the finder's e-mail (`/found/{code}?resume=<token>`), which "opens your conversation in any
   * browser": exchanged here for a finder token of this browser's cookie, so a browser without script shows it too. The
   * address stays as it is, for the app, which exchanges the link for its own token where script runs. Refused (an
   * expired or altered link), the page says so with what the browser had.
   */
  private async resume(request: FinderPageRequest, reply: FastifyReply, page: PageState, resumeToken: string): Promise<FastifyReply> {
    // What the API takes as a link's token; anything else is a link that does not hold, as an unknown one.
    if (!finderResumeBodySchema.shape.token.safeParse(resumeToken).success) return this.sendPage(reply, { ...page, error: errorAnswer(422, ResponseCode.RESUME_LINK_EXPIRED) });
    let token: string;
    try {
      token = (await this.conversations.resumeFinder(page.code, resumeToken, namedLanguage(request))).finder_token;
    } catch (error) {
      return this.sendPage(reply, { ...page, error: this.answerOf(error, request) });
    }
    this.keepToken(reply, page.code, token);
    return this.sendPage(reply, { ...page, finderToken: token });
  }

  private async postForm(request: FinderPageRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { code } = request.params;
    // Media types are case-insensitive (RFC 9110 §8.3.1).
    const posted = typeof request.body === 'string' && request.headers['content-type']?.toLowerCase().startsWith(FORM_TYPE) ? parseFinderForm(request.body) : null;
    const language = posted?.language ?? namedLanguage(request) ?? 'en';
    const item = await this.lookUp(request, reply, code, language);
    if (!item) return reply;
    const finderToken = finderTokenFromCookies(request.headers.cookie);
    if (!isSameOrigin(request.headers, this.publicOrigin)) {
      return this.sendPage(reply, { code, language, item, finderToken, error: errorAnswer(403, ResponseCode.FORBIDDEN) });
    }
    if (!posted) return this.sendPage(reply, { code, language, item, finderToken, error: errorAnswer(400, ResponseCode.MALFORMED_REQUEST) });
    const values = { content: posted.content, email: posted.email };
    const form = validateFinderForm(posted, { inConversation: Boolean(finderToken) });
    if (!form.valid) {
      return this.sendPage(reply, { code, language, item, finderToken, values, error: errorAnswer(422, ResponseCode.VALIDATION_ERROR, form.validation) });
    }

    // The message first, through the API's own rules (the spam limits come before anything is written): without a
    // cookie it opens the finder's conversation. Then the address, if they left one, in that conversation.
    const messageLanguage = posted.language ?? namedLanguage(request);
    let token = finderToken;
    // No content: the finder's address alone, in their conversation (validateFinderForm allows it only then).
    if (form.content) {
      try {
        token = (await this.conversations.postMessage(code, { content: form.content }, caller(token), undefined, request.ip, reply, messageLanguage)).finder_token ?? token;
      } catch (error) {
        return this.sendPage(reply, { code, language, item, finderToken, values, error: this.answerOf(error, request) });
      }
    }
    // Set again with every message: the cookie lasts 30 days from the finder's last word.
    if (token) this.keepToken(reply, code, token);
    if (form.email && token) {
      try {
        await this.conversations.setFinder(code, form.email, caller(token), messageLanguage);
      } catch (error) {
        // The message is in (the page shows it); only the address is left to give again: the page asks for it in the
        // reply form, filled in, and takes it alone.
        return this.sendPage(reply, { code, language, item, finderToken: token, values: { email: posted.email }, error: this.answerOf(error, request) });
      }
    }
    return reply.redirect(finderPagePath(code), 303);
  }

  /**
   * A post refused before the form was read (a body over the limit, a type the page's form never sends): the page
   * again, saying why, as for any other refused form, rather than the API's JSON error a browser would show as text.
   * A body over the limit is a message far over its length (FINDER_FORM_BODY_LIMIT_BYTES), so the page says so at the
   * message; what was typed cannot be given back, as it was never read. Anything else goes on to the server's handler.
   */
  private async refusePost(error: FastifyError, request: FinderPageRequest, reply: FastifyReply): Promise<FastifyReply> {
    const answer = toHttpError(error);
    if (!answer || answer.status >= 500 || reply.sent) throw error;
    const { code } = request.params;
    const language = namedLanguage(request) ?? 'en';
    const item = await this.lookUp(request, reply, code, language);
    if (!item) return reply;
    const refused = answer.status === 413 ? { ...answer, body: { ...answer.body, validation: { content: `max=${MESSAGE_MAX_LENGTH}` as const } } } : answer;
    return this.sendPage(reply, { code, language, item, finderToken: finderTokenFromCookies(request.headers.cookie), error: refused });
  }

  /** The item, or null once the answer is sent: the not-found page (404, a miss of the unknown-code limit) or an error. */
  private async lookUp(request: FinderPageRequest, reply: FastifyReply, code: string, language: string): Promise<PublicItem | null> {
    try {
      return await limitUnknownCodeLookups(this.unknownCodes, request.ip, reply, () => this.items.scan(code, null));
    } catch (error) {
      await this.sendPage(reply, { code, language, item: null, error: this.answerOf(error, request) });
      return null;
    }
  }

  /** The page, with the finder's conversation when their cookie names one that is still theirs. */
  private async sendPage(reply: FastifyReply, state: PageState): Promise<FastifyReply> {
    const { code, language, item, finderToken, error, values } = state;
    let thread: Message[] | null = null;
    let problem = error;
    if (item && finderToken) {
      try {
        thread = await this.conversations.listMessages(code, undefined, caller(finderToken));
      } catch (cause) {
        const answer = toHttpError(cause);
        // A token messaging no longer takes (the owner reset the item, the finder deleted the conversation): the
        // browser forgets it and the page starts afresh, as the app does with its stored token.
        if (answer?.status === 403 || answer?.status === 404) void reply.header('set-cookie', clearedFinderCookie(finderPagePath(code), this.secureCookie));
        else problem ??= answer ?? INTERNAL_ERROR_ANSWER;
      }
    }
    const status = problem?.status ?? 200;
    const renderer = this.renderer!;
    const render = () =>
      renderer.render({
        code,
        language,
        item,
        thread,
        values: problem ? values : null,
        error: problem ? { status: problem.status, response_code: problem.body.response_code, validation: problem.body.validation } : null,
      });
    // A first visit's page (no conversation shown, nothing refused) is the item's, the language's and the code's
    // alone: kept while the scan cache answers the same item (FirstVisitPages).
    const html = item && !thread && !problem ? this.firstVisitPages.pageOf(code, language, item, render) : render();
    return reply
      .status(status)
      .headers(problem?.headers ?? {})
      // A page that shows a conversation, or gives back what the finder typed (their message, their address), is the
      // finder's alone: never kept by a browser's cache or a proxy.
      .header('cache-control', finderToken || (problem && values) ? 'private, no-store' : 'no-cache')
      .header('vary', 'Accept-Language, Cookie')
      // Browsers send the page's form posts with its Origin (no-referrer would make it `null`); other sites learn nothing.
      .header('referrer-policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  private keepToken(reply: FastifyReply, code: string, token: string): void {
    void reply.header('set-cookie', finderCookie(token, finderPagePath(code), this.secureCookie));
  }

  private answerOf(error: unknown, request: FastifyRequest): HttpErrorAnswer {
    const answer = toHttpError(error);
    if (answer) return answer;
    this.logger.error({ err: error, route: `${request.method} /found/:code` }, 'unhandled error');
    return INTERNAL_ERROR_ANSWER;
  }
}

function caller(finderToken: string | undefined): ThreadCaller {
  return { viewerUserId: null, finderToken };
}

function errorAnswer(status: number, code: ResponseCode, validation?: HttpErrorAnswer['body']['validation']): HttpErrorAnswer {
  return { status, body: { response_code: code, message: code, ...(validation ? { validation } : {}) } };
}

/** `/found/{code}` with the query of `url`: the code encoded again, so a decoded `/` or `\` cannot leave the page's path. */
function canonicalFinderPath(code: string, url: string): string {
  const query = url.indexOf('?');
  return `/found/${encodeURIComponent(code)}${query >= 0 ? url.slice(query) : ''}`;
}
