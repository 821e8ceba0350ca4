/* A MuJoCo host with no Python in it: the C API only, as a C or C++ program
 * (MuJoCo's simulate app, a controller) would load aurgen's worlds.
 * Built once per test session by tests/conftest.py (fixture mujoco_host):
 *   cc mujoco_host.c -I<mujoco>/include <mujoco>/libmujoco.so.<version>
 * Usage: mujoco_host PLUGIN_LIBRARY|- MODEL.xml STEPS BODY
 * Loads the plugin library (unless "-"), then the model, steps it STEPS times and
 * prints BODY's height (m, world z) and the contact count.  A model that does not
 * load: MuJoCo's error on stderr, exit 1. */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: mujoco_host PLUGIN_LIBRARY|- MODEL.xml STEPS BODY\n");
    return 2;
  }
  if (strcmp(argv[1], "-") != 0) mj_loadPluginLibrary(argv[1]);
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[2], NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  mjData* d = mj_makeData(m);
  int b = mj_name2id(m, mjOBJ_BODY, argv[4]);
  if (!d || b < 0) {
    fprintf(stderr, "no body named %s\n", argv[4]);
    return 1;
  }
  int n = atoi(argv[3]);
  for (int i = 0; i < n; ++i) mj_step(m, d);
  printf("%.17g %d\n", d->xpos[3 * b + 2], d->ncon);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
