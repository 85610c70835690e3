package jsonrpc

import (
	"fmt"
	"sync"
)

// notificationQueue is the unbounded FIFO between the read loop and the
// notification worker. It is unbounded on purpose: a bound would make the
// read loop wait for handlers, and a handler waiting on an outgoing call's
// answer would then wait for itself.
type notificationQueue struct {
	mu     sync.Mutex
	items  []*Request    // guarded by mu
	closed bool          // no more pushes; guarded by mu
	ready  chan struct{} // 1-buffered: items were pushed or the queue closed
}

func newNotificationQueue() notificationQueue {
	return notificationQueue{ready: make(chan struct{}, 1)}
}

// push appends req and wakes the worker. It never blocks for long.
func (q *notificationQueue) push(req *Request) {
	q.mu.Lock()
	q.items = append(q.items, req)
	q.mu.Unlock()
	q.wake()
}

// close tells the worker to stop once the queue is drained.
func (q *notificationQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *notificationQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop returns the oldest item; ok is false when the queue is empty, and
// closed reports that it will stay so.
func (q *notificationQueue) pop() (req *Request, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		q.items = nil // let a drained burst's backing array go
		return nil, false, q.closed
	}
	req = q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return req, true, false
}

// notificationWorker runs notification handlers one at a time, in arrival
// order. After the end of input it drains the queue; after Close or a broken
// stream it drops what is left, since the handlers' context is cancelled.
func (c *Conn) notificationWorker() {
	defer c.handlers.Done()
	for {
		req, ok, closed := c.queue.pop()
		switch {
		case ok:
			if c.ctx.Err() != nil {
				continue
			}
			if _, err := c.callHandler(c.ctx, req); err != nil {
				c.report(fmt.Errorf("handling notification %q: %w", req.Method, err))
			}
		case closed:
			return
		default:
			<-c.queue.ready // finish always closes the queue, so this ends
		}
	}
}
