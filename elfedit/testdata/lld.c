struct s { int a; long b; };
int f(struct s *p) { return p->a + (int)p->b; }
int _start(void) { struct s x = {1,2}; return f(&x); }
