"""The stream-json wire's kit: what runs or generates for it (its reference emitter and consumers,
its hypothesis strategies, broken and future variants). It stands above the checking machinery
it uses, and nothing below it imports it: it loads by path or by the descriptor's module names.
"""
