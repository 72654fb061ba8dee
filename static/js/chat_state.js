// What the chat's page script (chat.js) decides, without a page: where a message goes,
// which refusals are the chat's, what goes back into the box, what is unread, whether
// the log follows the newest line. Tested with node (tests/js/chat_state.test.js).

// The refusals of a message (games/refusals.py): the text goes back into the box and
// the reason under it. Others (a game's) are the game's.
const CHAT_CODES = new Set(["CHAT_LOG_IN", "CHAT_ACCOUNTS_ONLY", "CHAT_CLOSED", "CHAT_EMPTY", "CHAT_TOO_LONG",
  "CHAT_FLOOD", "MUTED", "CHAT_SELF", "NO_SUCH_MESSAGE", "BAD_TEXT"]);

export function isChatRefusal(code) {
  return CHAT_CODES.has(code) || (typeof code === "string" && code.startsWith("CHAT_"));
}

// Where a message written now goes, as lobby/chat.py ``writer`` decides it: the lobby's
// room; at a table, the spectators' while a game runs and the writer holds no seat
// there, else the table's. Names the input's data-words-* placeholder.
export function roomOf({ lobby = false, seated = false, running = false } = {}) {
  if (lobby) return "lobby";
  return running && !seated ? "spectators" : "table";
}

// The box after a refusal of `sent`: given back, unless something new was typed
// meanwhile (that is not thrown away either; the reason under the box says what failed).
export function givenBack(current, sent) {
  return current.trim() ? current : sent;
}

// The id number of a message's element ("chat-42" -> 42; 0 for anything else).
export function messageNumber(elementId) {
  const match = /^chat-(\d+)$/.exec(elementId || "");
  return match ? Number(match[1]) : 0;
}

// How many of `messages` ([{id, mine}]) came after the reader last looked (`seenUpTo`,
// the highest id then in view): one's own never count.
export function unreadCount(messages, seenUpTo) {
  return messages.filter((m) => m.id > seenUpTo && !m.mine).length;
}

// Whether a log scrolled this way shows its newest line: then it keeps doing so as
// messages come; a reader who scrolled up to read stays where they are.
export const FOLLOW_SLACK_PX = 24;
export function atBottom({ scrollTop, scrollHeight, clientHeight }) {
  return scrollHeight - scrollTop - clientHeight <= FOLLOW_SLACK_PX;
}
