// The chat's decisions without a page (static/js/chat_state.js): where a message goes,
// which refusals give the text back, what is unread, when the log follows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { atBottom, givenBack, isChatRefusal, messageNumber, roomOf, unreadCount } from "../../static/js/chat_state.js";

test("a spectator writes to the spectators while a game runs, to the table before and after", () => {
  assert.equal(roomOf({ seated: false, running: true }), "spectators");
  assert.equal(roomOf({ seated: false, running: false }), "table");
});

test("a seated player always writes to the table", () => {
  assert.equal(roomOf({ seated: true, running: true }), "table");
  assert.equal(roomOf({ seated: true, running: false }), "table");
});

test("the lobby's box writes to the lobby, whatever a table would say", () => {
  assert.equal(roomOf({ lobby: true, seated: false, running: true }), "lobby");
});

test("the chat's refusals are its own, a game's are the game's", () => {
  for (const code of ["CHAT_FLOOD", "CHAT_TOO_LONG", "CHAT_EMPTY", "CHAT_LOG_IN", "CHAT_CLOSED", "MUTED", "BAD_TEXT"]) {
    assert.equal(isChatRefusal(code), true, code);
  }
  for (const code of ["SPECTATOR", "NO_GAME", "NOT_YOUR_TURN", "BAD_FRAME", "", undefined]) {
    assert.equal(isChatRefusal(code), false, String(code));
  }
});

test("a refused text goes back into an empty box", () => {
  assert.equal(givenBack("", "gg, one more?"), "gg, one more?");
  assert.equal(givenBack("   ", "gg"), "gg");
});

test("a refused text does not overwrite what was typed since", () => {
  assert.equal(givenBack("wait, my cat", "gg"), "wait, my cat");
});

test("messages are numbered by their element's id", () => {
  assert.equal(messageNumber("chat-42"), 42);
  assert.equal(messageNumber("chat-"), 0);
  assert.equal(messageNumber("seat-2"), 0);
  assert.equal(messageNumber(undefined), 0);
});

test("unread: what came after the reader last looked, one's own messages not counted", () => {
  const messages = [{ id: 3, mine: false }, { id: 5, mine: false }, { id: 6, mine: true }, { id: 7, mine: false }];
  assert.equal(unreadCount(messages, 3), 2);
  assert.equal(unreadCount(messages, 7), 0);
  assert.equal(unreadCount([], 0), 0);
});

test("the log follows its newest line only while it shows it", () => {
  assert.equal(atBottom({ scrollTop: 700, scrollHeight: 1000, clientHeight: 300 }), true);
  assert.equal(atBottom({ scrollTop: 690, scrollHeight: 1000, clientHeight: 300 }), true); // a few pixels off
  assert.equal(atBottom({ scrollTop: 400, scrollHeight: 1000, clientHeight: 300 }), false); // scrolled up to read
  assert.equal(atBottom({ scrollTop: 0, scrollHeight: 100, clientHeight: 300 }), true); // nothing to scroll
});
