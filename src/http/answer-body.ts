// A cached answer comes back as the same object on every hit (the in-process cache keeps objects),
// so a route writes its JSON once — with the route's own response serializer — and then sends that
// string as it is instead of serialising the answer anew for every request. Answers are never
// changed once made (the cache hands the same object to every caller), so the string stays true.
import type { FastifyReply } from 'fastify';

/** Sends `answer` as the route's 200 JSON, serialised once per answer object. */
export type SendAnswer = (reply: FastifyReply, answer: object) => FastifyReply;

/** One per route: the strings are its serializer's, keyed weakly by answer (dropped with it). */
export function answerBodies(): SendAnswer {
  const bodies = new WeakMap<object, string>();
  return (reply, answer) => {
    let body = bodies.get(answer);
    if (body === undefined) {
      const serialised = reply.serialize(answer);
      // JSON serializers write strings; anything else is sent as the route would send it.
      if (typeof serialised !== 'string') return reply.send(answer);
      body = serialised;
      bodies.set(answer, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  };
}
