package dev.ondevice.processor;

import org.junit.jupiter.api.Test;

/** {@code LocalModelClass}: model classes for which no code can be generated. */
class LocalModelClassTest {
  @Test
  void localAndAnonymousModelClassesAreReported() {
    AnalysedSources.check(
        "LocalModels",
        """
        class LocalModels {
          void run(Device device) {
            class Net extends Model { // expect: LocalModelClass
              dev.ondevice.Parameter w;
            }
            Model anonymous = new Model() {}; // expect: LocalModelClass
            class Holder {
              static class Inner extends Model { // expect: LocalModelClass
                dev.ondevice.Parameter w;
              }
            }
            Runnable notAModel = new Runnable() {
              public void run() {}
            };
          }

          @SuppressWarnings("LocalModelClass")
          void quiet() {
            Model anonymous = new Model() {};
          }
        }\
        """);
  }
}
