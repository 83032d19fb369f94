package dev.ondevice.processor.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import javax.lang.model.element.Element;
import org.junit.jupiter.api.Test;

/**
 * The environments' copies share their variables until written: a write must never reach another
 * copy.
 */
class EnvTest {
  private static final Value CPU = Value.on(Place.CPU);
  private static final Value CUDA = Value.on(Place.fixed("cuda:0"));

  /** A variable: environments compare variables by identity, so any distinct object will do. */
  private static Element variable() {
    return (Element)
        Proxy.newProxyInstance(
            EnvTest.class.getClassLoader(),
            new Class<?>[] {Element.class},
            (proxy, method, args) ->
                method.getName().equals("equals")
                    ? proxy == args[0]
                    : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : null);
  }

  @Test
  void writesToACopyAndToItsOriginalStayApart() {
    Element x = variable();
    Element y = variable();
    Env original = Env.start();
    original.put(x, CPU);
    Env copy = original.copy();
    copy.put(x, CUDA);
    original.put(y, CUDA);

    assertSame(CPU, original.get(x));
    assertSame(CUDA, copy.get(x));
    assertSame(CUDA, original.get(y));
    assertNull(copy.get(y));
  }

  @Test
  void aCopyOfACopyIsIndependentOfBoth() {
    Element x = variable();
    Env a = Env.start();
    a.put(x, CPU);
    Env b = a.copy();
    Env c = b.copy();
    c.put(x, CUDA);
    b.put(x, Value.UNKNOWN);

    assertSame(CPU, a.get(x));
    assertSame(Value.UNKNOWN, b.get(x));
    assertSame(CUDA, c.get(x));
  }

  @Test
  void growsPastItsFirstCapacityAndKeepsEveryVariable() {
    Env env = Env.start();
    Element[] variables = new Element[40];
    for (int i = 0; i < variables.length; i++) {
      variables[i] = variable();
      env.put(variables[i], i % 2 == 0 ? CPU : CUDA);
    }
    Env copy = env.copy();
    copy.put(variables[0], CUDA);
    for (int i = 0; i < variables.length; i++) {
      assertSame(i % 2 == 0 ? CPU : CUDA, env.get(variables[i]), "variable " + i);
    }
    assertSame(CUDA, copy.get(variables[0]));
  }

  @Test
  void joinKeepsVariablesOfBothPathsAndMergesTheirValues() {
    Element both = variable();
    Element same = variable();
    Element onlyLeft = variable();
    Env left = Env.start();
    left.put(both, CPU);
    left.put(same, CUDA);
    left.put(onlyLeft, CPU);
    Env right = Env.start();
    right.put(same, CUDA);
    right.put(both, CUDA);

    Env joined = left.join(right);

    assertEquals(Place.CPU.join(Place.fixed("cuda:0")), joined.get(both).place());
    assertEquals(CUDA, joined.get(same));
    assertNull(
        joined.get(onlyLeft), "a variable of one path only is out of scope where the paths meet");
    assertSame(CPU, left.get(both), "the join must not change its operands");
  }

  @Test
  void equalityIgnoresTheOrderOfVariablesAndSeesEveryValue() {
    Element x = variable();
    Element y = variable();
    Env a = Env.start();
    a.put(x, CPU);
    a.put(y, CUDA);
    Env b = Env.start();
    b.put(y, CUDA);
    b.put(x, CPU);
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());

    b.put(x, CUDA);
    assertNotEquals(a, b);
    assertNotEquals(a, Env.unreachable());
  }

  @Test
  void aSynchronisationCompletesPendingCopiesInThisEnvironmentOnly() {
    Element x = variable();
    Env env = Env.start();
    env.put(x, CPU.withPendingHostCopy(true));
    Env before = env.copy();

    env.completePendingHostCopies();

    assertEquals(CPU, env.get(x));
    assertEquals(CPU.withPendingHostCopy(true), before.get(x));
  }
}
