/* A small translation unit for the elffile tests: its debug info has types,
 * global, static and thread-local variables, an inlined function, location
 * lists and range lists, so every debug section carries relocations. */
struct point {
	int x, y;
	struct point *next;
};
union word {
	long l;
	char c[8];
};
enum color { RED, GREEN = 5 };
typedef struct point point_t;

int counter = 1;
static const char *message = "tiny";
__thread int tls_counter;
static point_t origin;

static inline int sq(int v)
{
	return v * v;
}

int dist2(const point_t *p)
{
	int s = 0;

	for (; p; p = p->next)
		s += sq(p->x - origin.x) + sq(p->y - origin.y);
	return s + counter + message[0] + tls_counter;
}

enum color pick(union word *w, int n)
{
	if (n > 3)
		return w->c[n & 7] ? GREEN : RED;
	counter += n;
	origin.x = n;
	return RED;
}
