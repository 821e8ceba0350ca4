// Load SDF files with libsdformat and print every error; exit 1 if any.
// Built once per test session by tests/conftest.py (fixture sdf_checker):
//   g++ -std=c++17 sdf_check.cc $(pkg-config --cflags --libs sdformat12)
#include <iostream>
#include <sdf/sdf.hh>

int main(int argc, char **argv)
{
  if (argc < 2)
  {
    std::cerr << "usage: sdf_check FILE..." << std::endl;
    return 2;
  }
  int failed = 0;
  for (int i = 1; i < argc; ++i)
  {
    sdf::Root root;
    sdf::Errors errors = root.Load(argv[i]);
    for (const auto &e : errors)
      std::cout << argv[i] << ": " << e << std::endl;
    if (!errors.empty())
    {
      failed = 1;
      continue;
    }
    const sdf::Model *model = root.Model();
    if (model == nullptr)
    {
      std::cout << argv[i] << ": no model" << std::endl;
      failed = 1;
      continue;
    }
    std::size_t sensors = 0;
    for (std::size_t l = 0; l < model->LinkCount(); ++l)
    {
      const sdf::Link *link = model->LinkByIndex(l);
      sensors += link->SensorCount();
      for (std::size_t s = 0; s < link->SensorCount(); ++s)
        std::cout << argv[i] << ": sensor " << link->Name() << " " << link->SensorByIndex(s)->Name() << " "
                  << link->SensorByIndex(s)->TypeStr() << " " << link->SensorByIndex(s)->Topic() << std::endl;
    }
    std::cout << argv[i] << ": ok model " << model->Name() << " links " << model->LinkCount()
              << " joints " << model->JointCount() << " frames " << model->FrameCount()
              << " sensors " << sensors << std::endl;
  }
  return failed;
}
